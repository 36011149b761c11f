//! Undoing what terminals, CI systems and launchers do to a line before anything parses it:
//! ANSI colour codes, timestamps, `[rank3]:`-style process prefixes, markdown quote marks.
//! Only lines that the prefilter flagged get here, so this may allocate.

use std::borrow::Cow;

use crate::model::RankRef;

/// A segment of a log line, cleaned.
pub struct Cleaned<'a> {
    pub text: Cow<'a, str>,
    pub rank: Option<RankRef>,
}

pub fn clean(seg: &[u8]) -> Cleaned<'_> {
    let text: Cow<'_, [u8]> = if needs_ansi_strip(seg) { Cow::Owned(strip_ansi(seg)) } else { Cow::Borrowed(seg) };
    let text: Cow<'_, str> = match text {
        Cow::Borrowed(b) => String::from_utf8_lossy(b),
        Cow::Owned(v) => Cow::Owned(String::from_utf8_lossy(&v).into_owned()),
    };
    let (start, rank) = strip_prefixes(&text);
    let text = match text {
        Cow::Borrowed(s) => Cow::Borrowed(&s[start..]),
        Cow::Owned(s) => Cow::Owned(s[start..].to_string()),
    };
    let text = match (inner_mpi_tags(&text), html_escaped(&text)) {
        (false, false) => text,
        (tags, html) => {
            let mut t = text.into_owned();
            if tags {
                t = strip_inner_mpi_tags(&t);
            }
            if html {
                t = unescape_html(&t);
            }
            Cow::Owned(t)
        }
    };
    Cleaned { text, rank }
}

/// An OpenMPI `--tag-output` tag (`[1,0]<stderr>:`) inside the line: the launcher tags each
/// chunk it forwards, so a long line read in two chunks carries a second tag mid-line.
fn inner_mpi_tags(s: &str) -> bool {
    ["]<stderr>:", "]<stdout>:", "]<stddiag>:"].iter().any(|t| s.contains(t))
}

fn strip_inner_mpi_tags(s: &str) -> String {
    rewrite(s, '[', |at| rank_prefix(at.as_bytes()).filter(|(n, _)| at[..*n].contains(">:")).map(|(n, _)| (n, "")))
}

/// `s` with each piece that starts at a `mark` and that `piece` recognizes (its length and what
/// replaces it) replaced; other marks kept.
fn rewrite<'r>(s: &str, mark: char, piece: impl Fn(&str) -> Option<(usize, &'r str)>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find(mark) {
        out.push_str(&rest[..p]);
        let after = &rest[p..];
        match piece(after) {
            Some((n, with)) => {
                out.push_str(with);
                rest = &after[n..];
            }
            None => {
                out.push(mark);
                rest = &after[mark.len_utf8()..];
            }
        }
    }
    out.push_str(rest);
    out
}

const HTML_ENTITIES: [(&str, &str); 5] = [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")];

/// A line that went through an HTML page (a scraped issue, a rendered notebook) keeps its
/// entities: `Acctype&gt;`, `&amp;&amp;`.
fn html_escaped(s: &str) -> bool {
    memchr::memchr(b'&', s.as_bytes()).is_some() && HTML_ENTITIES.iter().any(|(e, _)| s.contains(e))
}

fn unescape_html(s: &str) -> String {
    rewrite(s, '&', |at| HTML_ENTITIES.iter().find(|(e, _)| at.starts_with(e)).map(|(e, c)| (e.len(), *c)))
}

fn needs_ansi_strip(seg: &[u8]) -> bool {
    // ESC, or a remnant whose ESC was lost (`[0m`, `[1;31m`, `[0K`, `[A`)
    memchr::memchr(0x1b, seg).is_some() || memchr::memchr_iter(b'[', seg).any(|i| remnant_len(&seg[i..]).is_some())
}

/// Removes escape sequences (CSI, OSC, two-byte) and the `[31m`-style remnants that are left
/// when a paste lost the ESC byte.
pub fn strip_ansi(seg: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(seg.len());
    let mut i = 0;
    while i < seg.len() {
        let b = seg[i];
        if b == 0x1b {
            i += 1;
            match seg.get(i) {
                Some(b'[') => {
                    i += 1;
                    while i < seg.len() && (0x20..=0x3f).contains(&seg[i]) {
                        i += 1;
                    }
                    if i < seg.len() && (0x40..=0x7e).contains(&seg[i]) {
                        i += 1;
                    }
                }
                Some(b']') => {
                    i += 1;
                    while i < seg.len() && seg[i] != 0x07 && !(seg[i] == 0x1b && seg.get(i + 1) == Some(&b'\\')) {
                        i += 1;
                    }
                    i += if i < seg.len() && seg[i] == 0x1b { 2 } else { 1 };
                }
                Some(_) => i += 1,
                None => {}
            }
            continue;
        }
        if b == b'[' {
            if let Some(len) = remnant_len(&seg[i..]) {
                i += len;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

/// `[0m`, `[1;31m`, `[0K`: an SGR/erase sequence whose ESC was lost. One closed by `]` is a
/// subscript in a code line (`p[m]`, `scores[A]`), not a remnant.
fn remnant_len(s: &[u8]) -> Option<usize> {
    let mut j = 1;
    while j < s.len() && (s[j].is_ascii_digit() || s[j] == b';') {
        j += 1;
    }
    if j > 12 || s.get(j + 1) == Some(&b']') {
        return None;
    }
    match s.get(j) {
        Some(b'm') | Some(b'K') if j > 1 => Some(j + 1),
        Some(b'm') if j == 1 => Some(2),
        // cursor movement left by progress bars ("[A"), only before a non-word character
        Some(b'A' | b'B' | b'C' | b'D' | b'K') if s.get(j + 1).map_or(true, |c| !c.is_ascii_alphanumeric()) => Some(j + 1),
        _ => None,
    }
}

/// Returns the byte offset where the message starts, and the process prefix if one was seen.
pub fn strip_prefixes(s: &str) -> (usize, Option<RankRef>) {
    let b = s.as_bytes();
    let mut pos = 0;
    let mut rank = None;
    for _ in 0..8 {
        let rest = &b[pos..];
        let ws = rest.iter().take_while(|c| **c == b' ' || **c == b'\t').count();
        let r = &rest[ws..];
        let mut rank_step = false;
        let step = if let Some(n) = gh_log_failed_prefix(r) {
            n
        } else if let Some(n) = iso_timestamp(r) {
            n
        } else if let Some((n, rr)) = rank_prefix(r) {
            rank = Some(rr);
            rank_step = true;
            n
        } else if let Some(n) = bracket_clock(r) {
            n
        } else if let Some(n) = level_tag(r) {
            n
        } else if r.starts_with(b"```") {
            // a markdown fence with the pasted text glued to it ("```<ipython-input-19-…> in
            // <module>()", "```Traceback (most recent call last):")
            rank_step = true;
            r.iter().take_while(|c| **c == b'`').count()
        } else if r.first() == Some(&b'>') && r.get(1).map_or(true, |c| *c == b' ') {
            rank_step = true;
            1 + usize::from(r.get(1) == Some(&b' '))
        } else {
            0
        };
        if step == 0 {
            break;
        }
        pos += ws + step;
        // A timestamp is followed by one separator; a launcher prefix by the original line,
        // whose indentation matters to tracebacks and is kept.
        if !rank_step && b.get(pos) == Some(&b' ') {
            pos += 1;
        }
    }
    (pos, rank)
}

fn digits(s: &[u8]) -> usize {
    s.iter().take_while(|c| c.is_ascii_digit()).count()
}

/// `2024-05-01T12:00:00.1234567Z`, `2024-05-01 12:00:00,123`, optionally in brackets, with a
/// zone, and GitLab's stream marker (`00O`, `01E+`) after it.
pub(crate) fn iso_timestamp(s: &[u8]) -> Option<usize> {
    let bracket = s.first() == Some(&b'[');
    let t = if bracket { &s[1..] } else { s };
    if t.len() < 19
        || digits(t) != 4
        || t[4] != b'-'
        || digits(&t[5..]) != 2
        || t[7] != b'-'
        || digits(&t[8..]) != 2
        || !(t[10] == b'T' || t[10] == b' ')
        || digits(&t[11..]) != 2
        || t[13] != b':'
        || digits(&t[14..]) != 2
        || t[16] != b':'
        || digits(&t[17..]) != 2
    {
        return None;
    }
    let mut i = 19;
    if i < t.len() && (t[i] == b'.' || t[i] == b',') {
        i += 1 + digits(&t[i + 1..]);
    }
    if i < t.len() && t[i] == b'Z' {
        i += 1;
    } else if i < t.len() && (t[i] == b'+' || t[i] == b'-') && digits(&t[i + 1..]) >= 2 {
        i += 1 + digits(&t[i + 1..]);
        if i < t.len() && t[i] == b':' {
            i += 1 + digits(&t[i + 1..]);
        }
    }
    if bracket {
        if t.get(i) != Some(&b']') {
            return None;
        }
        i += 1;
    }
    let mut n = i + usize::from(bracket);
    // GitLab: "2024-05-01T12:00:00.123456Z 00O " / "01E+"
    let rest = &s[n..];
    if rest.len() >= 4 && rest[0] == b' ' && digits(&rest[1..]) == 2 && matches!(rest[3], b'O' | b'E') {
        n += 4;
        if s.get(n) == Some(&b'+') {
            n += 1;
        }
    }
    Some(n)
}

/// `gh run view --log-failed` prints `job<TAB>step<TAB>timestamp message`.
fn gh_log_failed_prefix(s: &[u8]) -> Option<usize> {
    let t1 = memchr::memchr(b'\t', s)?;
    let t2 = t1 + 1 + memchr::memchr(b'\t', &s[t1 + 1..])?;
    let ts = iso_timestamp(&s[t2 + 1..])?;
    Some(t2 + 1 + ts)
}

/// A logging level in brackets: `[ERROR]`, `[WARNING]`.
fn level_tag(s: &[u8]) -> Option<usize> {
    for tag in [&b"[ERROR]"[..], b"[WARNING]", b"[WARN]", b"[INFO]", b"[DEBUG]", b"[CRITICAL]", b"[FATAL]"] {
        if s.starts_with(tag) {
            return Some(tag.len());
        }
    }
    None
}

/// `[12:00:00]` or `[12:00:00.123]`.
fn bracket_clock(s: &[u8]) -> Option<usize> {
    if s.first() != Some(&b'[') || s.len() < 10 {
        return None;
    }
    let t = &s[1..];
    if digits(t) == 2 && t[2] == b':' && digits(&t[3..]) == 2 && t[5] == b':' && digits(&t[6..]) == 2 {
        let mut i = 8;
        if t.get(i) == Some(&b'.') || t.get(i) == Some(&b',') {
            i += 1 + digits(&t[i + 1..]);
        }
        if t.get(i) == Some(&b']') {
            return Some(i + 2);
        }
    }
    None
}

/// Process prefixes added by launchers: torchrun (`[rank3]:`, `[default0]:`), srun -l / pdsh
/// (`15: `), OpenMPI (`[1,0]<stderr>:`), Ray (`(RayTrainWorker pid=123, ip=10.0.0.1)`).
fn rank_prefix(s: &[u8]) -> Option<(usize, RankRef)> {
    let mk = |kind: &str, id: &[u8]| -> Option<RankRef> {
        let id = std::str::from_utf8(id).ok()?.parse().ok()?;
        Some(RankRef { kind: kind.to_string(), id })
    };
    if s.first() == Some(&b'[') {
        for kind in ["rank", "default", "Rank"] {
            let k = kind.as_bytes();
            if s.len() > k.len() + 3 && &s[1..1 + k.len()] == k {
                let d = digits(&s[1 + k.len()..]);
                let end = 1 + k.len() + d;
                if d > 0 && s.get(end) == Some(&b']') && s.get(end + 1) == Some(&b':') {
                    let kind = if kind == "Rank" { "rank" } else { kind };
                    let n = end + 2 + usize::from(s.get(end + 2) == Some(&b' '));
                    return Some((n, mk(kind, &s[1 + k.len()..end])?));
                }
            }
        }
        // OpenMPI --tag-output: [1,0]<stderr>:
        let d1 = digits(&s[1..]);
        if d1 > 0 && s.get(1 + d1) == Some(&b',') {
            let d2 = digits(&s[2 + d1..]);
            let close = 2 + d1 + d2;
            if d2 > 0 && s.get(close) == Some(&b']') {
                let rest = &s[close + 1..];
                for tag in [&b"<stderr>:"[..], b"<stdout>:", b"<stddiag>:"] {
                    if rest.starts_with(tag) {
                        return Some((close + 1 + tag.len(), mk("rank", &s[2 + d1..close])?));
                    }
                }
            }
        }
        return None;
    }
    if s.first() == Some(&b'(') {
        let close = memchr::memchr(b')', s)?;
        let inner = &s[1..close];
        let p = memchr::memmem::find(inner, b"pid=")?;
        let d = digits(&inner[p + 4..]);
        if d == 0 || close > 200 {
            return None;
        }
        let n = close + 1 + usize::from(s.get(close + 1) == Some(&b' '));
        return Some((n, mk("pid", &inner[p + 4..p + 4 + d])?));
    }
    let d = digits(s);
    if (1..=5).contains(&d) && s.get(d) == Some(&b':') && s.get(d + 1) == Some(&b' ') {
        return Some((d + 2, mk("task", &s[..d])?));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> (String, Option<(String, u32)>) {
        let cl = clean(s.as_bytes());
        (cl.text.to_string(), cl.rank.map(|r| (r.kind, r.id)))
    }

    #[test]
    fn strips_ansi_and_remnants() {
        assert_eq!(c("\x1b[31mRuntimeError\x1b[0m: x").0, "RuntimeError: x");
        assert_eq!(c("[1;31mRuntimeError[0m: x").0, "RuntimeError: x");
        // a mask or a key named like a sequence's letter, in a traceback's code line
        assert_eq!(c("    loss = F.binary_cross_entropy(p[m], d[m])").0, "    loss = F.binary_cross_entropy(p[m], d[m])");
        assert_eq!(c("    s = scores[A] + b[K]").0, "    s = scores[A] + b[K]");
        assert_eq!(c("block: [0,0,0]").0, "block: [0,0,0]");
    }

    /// fixtures/public-logs/303 (horovod): OpenMPI tagged each forwarded chunk, so a long report
    /// carries a second `[1,0]<stderr>:` inside its kernel signature.
    #[test]
    fn an_openmpi_tag_inside_the_line_is_removed() {
        assert_eq!(
            c("[1,0]<stderr>:/p/BCECriterion.cu:42: Acctype bce_functor<Dtype, Acctype>::operator([1,0]<stderr>:)(Tuple) [x]").0,
            "/p/BCECriterion.cu:42: Acctype bce_functor<Dtype, Acctype>::operator()(Tuple) [x]"
        );
        assert_eq!(c("a[1,0] b [2]<stderr> c").0, "a[1,0] b [2]<stderr> c");
    }

    /// fixtures/public-logs/302: a log that went through an HTML page keeps its entities.
    #[test]
    fn html_entities_are_decoded() {
        assert_eq!(
            c(" void f<Dtype, Acctype&gt;::operator() Assertion `*input &gt;= 0. &amp;&amp; *input &lt;= 1.` failed.").0,
            " void f<Dtype, Acctype>::operator() Assertion `*input >= 0. && *input <= 1.` failed."
        );
        assert_eq!(c("a && b & c &x;").0, "a && b & c &x;");
    }

    #[test]
    fn strips_ci_timestamps() {
        assert_eq!(c("2024-05-01T12:00:00.1234567Z /pytorch/a.cu:1: f").0, "/pytorch/a.cu:1: f");
        assert_eq!(c("build\tRun tests\t2024-05-01T12:00:00.1234567Z Traceback").0, "Traceback");
        assert_eq!(c("2024-05-01T12:00:00.123456Z 00O+ Traceback").0, "Traceback");
        assert_eq!(c("[2024-05-01 12:00:00,123] x").0, "x");
        assert_eq!(c("[12:00:01] x").0, "x");
        assert_eq!(c("2022-12-28 16:13:02 [ERROR]    File \"a.py\"").0, "   File \"a.py\"");
    }

    #[test]
    fn reads_rank_prefixes() {
        assert_eq!(c("[rank3]: Traceback"), ("Traceback".into(), Some(("rank".into(), 3))));
        assert_eq!(c("[default0]:/pytorch/a.cu:1"), ("/pytorch/a.cu:1".into(), Some(("default".into(), 0))));
        assert_eq!(c("15: RuntimeError"), ("RuntimeError".into(), Some(("task".into(), 15))));
        assert_eq!(c("[1,0]<stderr>:x"), ("x".into(), Some(("rank".into(), 0))));
        assert_eq!(c("(RayTrainWorker pid=4242, ip=10.0.0.1) x"), ("x".into(), Some(("pid".into(), 4242))));
        assert_eq!(c("2024-05-01T12:00:00Z [rank1]: x"), ("x".into(), Some(("rank".into(), 1))));
    }

    #[test]
    fn leaves_paths_and_markdown_quotes() {
        assert_eq!(c("> RuntimeError: x").0, "RuntimeError: x");
        assert_eq!(c("C:\\w\\b\\Loss.cu:247: block").0, "C:\\w\\b\\Loss.cu:247: block");
        assert_eq!(c("unknown:0: unknown: block").0, "unknown:0: unknown: block");
    }
}
