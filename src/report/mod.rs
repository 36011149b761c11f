//! Rendering only: a finished `model::Report` as text for a terminal (`human`) or for CI
//! (`ci`: GitHub annotations, SARIF, Markdown). Nothing here reads the project or runs anything.

pub mod ci;
pub mod human;

/// The longest line of text output (terminal, GitHub annotations): longer lines (an 8 MB
/// assertion, a 400,000-character path) are cut, marked with `…`.
pub const MAX_LINE: usize = 4000;

/// The report's own typographic marks in ASCII, for output that is not a terminal (a log file,
/// a pipe, a CI console that mangles UTF-8): arrows, dashes, bullets, ellipses, the times sign,
/// wherever they appear (in a quoted line too; every other character is kept).
/// A diagnostic renderer that wraps at spaces only: a path (`data-v2/train.py`) or a code word
/// is never cut at a hyphen or a slash.
pub fn unbroken(h: miette::GraphicalReportHandler) -> miette::GraphicalReportHandler {
    h.with_break_words(false)
        .with_word_separator(textwrap::WordSeparator::AsciiSpace)
        .with_word_splitter(textwrap::WordSplitter::NoHyphenation)
}

pub fn ascii_marks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '→' => out.push_str("->"),
            '—' | '–' => out.push('-'),
            '•' => out.push('*'),
            '…' => out.push_str("..."),
            '×' => out.push('x'),
            c => out.push(c),
        }
    }
    out
}

/// `s` cut to `n` characters, marked with `…` when cut.
pub fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "…"
    }
}

/// Text output made inert for the terminal or a CI log: control characters a terminal acts on
/// (BS, BEL, CR, C1 controls such as CSI, escape sequences other than the colours the report
/// itself sets) are dropped, and each line is cut at `MAX_LINE` characters.
pub fn inert(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut width = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' => {
                width = 0;
                out.push(c);
            }
            '\u{1b}' => {
                // a colour (SGR: ESC [ digits and `;` m) is kept; anything else is dropped
                let mut seq = String::from(c);
                if chars.peek() == Some(&'[') {
                    seq.push(chars.next().unwrap_or('['));
                    while let Some(&d) = chars.peek() {
                        if d.is_ascii_digit() || d == ';' {
                            seq.push(d);
                            chars.next();
                        } else {
                            break;
                        }
                    }
                    if chars.peek() == Some(&'m') {
                        chars.next();
                        seq.push('m');
                        out.push_str(&seq);
                    }
                }
            }
            '\t' => {
                if width < MAX_LINE {
                    out.push(c);
                }
                width += 1;
            }
            c if c.is_control() => {}
            c => {
                if width < MAX_LINE {
                    out.push(c);
                } else if width == MAX_LINE {
                    out.push('…');
                }
                width += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn inert_keeps_colours_and_drops_what_a_terminal_acts_on() {
        assert_eq!(super::inert("\u{1b}[31merror\u{1b}[0m a\u{8}b\u{7}c\u{9b}2Jd\r\n"), "\u{1b}[31merror\u{1b}[0m abc2Jd\n");
        assert_eq!(super::inert("\u{1b}]0;title\u{7}x\u{1b}[2Jy"), "]0;titlexJy");
        let long = "x".repeat(super::MAX_LINE + 10);
        assert_eq!(super::inert(&long).chars().count(), super::MAX_LINE + 1);
    }
}
