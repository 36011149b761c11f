//! Opening a log: a file, stdin, gzip, UTF-16 with or without a BOM. Everything downstream sees
//! UTF-8-ish bytes; invalid UTF-8 is tolerated later, line by line.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use thiserror::Error;

#[derive(Debug, Error)]
pub enum InputError {
    #[error("cannot read {path}: no such file")]
    NotFound { path: PathBuf },
    #[error("cannot read {path}: permission denied")]
    PermissionDenied { path: PathBuf },
    #[error("cannot read {path}: it is a directory")]
    IsDirectory { path: PathBuf },
    #[error("cannot read {path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// Where a log comes from, as the report names it.
#[derive(Debug, Clone)]
pub enum LogSource {
    Stdin,
    File(PathBuf),
}

impl LogSource {
    pub fn from_arg(arg: &str) -> Self {
        if arg == "-" {
            LogSource::Stdin
        } else {
            LogSource::File(PathBuf::from(arg))
        }
    }

    pub fn display_name(&self) -> String {
        match self {
            LogSource::Stdin => "<stdin>".to_string(),
            LogSource::File(p) => p.display().to_string(),
        }
    }
}

/// The detected container/encoding of the input, reported as a note when not plain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16Le,
    Utf16Be,
}

pub struct OpenedLog {
    pub reader: Box<dyn Read>,
    pub gzip: bool,
    pub encoding: Encoding,
}

pub fn open(source: &LogSource) -> Result<OpenedLog, InputError> {
    let raw: Box<dyn Read> = match source {
        LogSource::Stdin => Box::new(io::stdin()),
        LogSource::File(path) => Box::new(open_file(path)?),
    };
    let name = match source {
        LogSource::Stdin => PathBuf::from("<stdin>"),
        LogSource::File(p) => p.clone(),
    };
    decode(raw).map_err(|source| InputError::Io { path: name, source })
}

fn open_file(path: &Path) -> Result<File, InputError> {
    let meta = std::fs::metadata(path).map_err(|e| map_io(path, e))?;
    if meta.is_dir() {
        return Err(InputError::IsDirectory { path: path.to_path_buf() });
    }
    File::open(path).map_err(|e| map_io(path, e))
}

fn map_io(path: &Path, e: io::Error) -> InputError {
    let path = path.to_path_buf();
    match e.kind() {
        io::ErrorKind::NotFound => InputError::NotFound { path },
        io::ErrorKind::PermissionDenied => InputError::PermissionDenied { path },
        _ => InputError::Io { path, source: e },
    }
}

/// Peeks at the first bytes and wraps the reader in the decoders it needs.
pub fn decode(raw: Box<dyn Read>) -> io::Result<OpenedLog> {
    let mut peeked = Peeked::new(raw)?;
    let gzip = peeked.head.starts_with(&[0x1f, 0x8b]);
    if gzip {
        let inner: Box<dyn Read> = Box::new(BufReader::new(flate2::read::MultiGzDecoder::new(peeked)));
        peeked = Peeked::new(inner)?;
    }
    let encoding = sniff_encoding(&peeked.head);
    let reader: Box<dyn Read> = match encoding {
        Encoding::Utf8 => {
            if peeked.head.starts_with(&[0xef, 0xbb, 0xbf]) {
                peeked.pos = 3;
            }
            Box::new(peeked)
        }
        Encoding::Utf16Le | Encoding::Utf16Be => {
            if peeked.head.starts_with(&[0xff, 0xfe]) || peeked.head.starts_with(&[0xfe, 0xff]) {
                peeked.pos = 2;
            }
            Box::new(Utf16ToUtf8::new(peeked, encoding == Encoding::Utf16Le))
        }
    };
    Ok(OpenedLog { reader, gzip, encoding })
}

/// Neither gzip, nor UTF-16, nor a UTF-8 BOM: the bytes can be scanned as they are.
pub fn is_plain_utf8(head: &[u8]) -> bool {
    !head.starts_with(&[0x1f, 0x8b]) && !head.starts_with(&[0xef, 0xbb, 0xbf]) && sniff_encoding(head) == Encoding::Utf8
}

/// UTF-16 is recognised by its BOM, or, without one, by NUL bytes in every other position
/// (PowerShell's `>` and some Windows editors write such files).
fn sniff_encoding(head: &[u8]) -> Encoding {
    if head.starts_with(&[0xff, 0xfe]) {
        return Encoding::Utf16Le;
    }
    if head.starts_with(&[0xfe, 0xff]) {
        return Encoding::Utf16Be;
    }
    let n = head.len().min(512) & !1;
    if n >= 8 {
        let pairs = n / 2;
        let odd_nul = (0..pairs).filter(|i| head[2 * i + 1] == 0 && head[2 * i] != 0).count();
        let even_nul = (0..pairs).filter(|i| head[2 * i] == 0 && head[2 * i + 1] != 0).count();
        if odd_nul * 10 >= pairs * 9 {
            return Encoding::Utf16Le;
        }
        if even_nul * 10 >= pairs * 9 {
            return Encoding::Utf16Be;
        }
    }
    Encoding::Utf8
}

/// A reader whose first bytes were read ahead for sniffing and are replayed first.
struct Peeked {
    head: Vec<u8>,
    pos: usize,
    rest: Box<dyn Read>,
}

impl Peeked {
    fn new(mut rest: Box<dyn Read>) -> io::Result<Self> {
        let mut head = vec![0u8; 4096];
        let mut filled = 0;
        while filled < head.len() {
            match rest.read(&mut head[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    if filled == 0 {
                        return Err(e);
                    }
                    break;
                }
            }
        }
        head.truncate(filled);
        Ok(Peeked { head, pos: 0, rest })
    }
}

impl Read for Peeked {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos < self.head.len() {
            let n = (self.head.len() - self.pos).min(buf.len());
            buf[..n].copy_from_slice(&self.head[self.pos..self.pos + n]);
            self.pos += n;
            return Ok(n);
        }
        self.rest.read(buf)
    }
}

/// Streams UTF-16 code units into UTF-8 bytes; unpaired surrogates become U+FFFD.
struct Utf16ToUtf8<R> {
    inner: R,
    little_endian: bool,
    inbuf: Vec<u8>,
    in_len: usize,
    out: Vec<u8>,
    out_pos: usize,
    pending_high: Option<u16>,
    eof: bool,
}

impl<R: Read> Utf16ToUtf8<R> {
    fn new(inner: R, little_endian: bool) -> Self {
        Utf16ToUtf8 {
            inner,
            little_endian,
            inbuf: vec![0; 64 * 1024],
            in_len: 0,
            out: Vec::with_capacity(96 * 1024),
            out_pos: 0,
            pending_high: None,
            eof: false,
        }
    }

    fn push_char(&mut self, c: char) {
        let mut tmp = [0u8; 4];
        self.out.extend_from_slice(c.encode_utf8(&mut tmp).as_bytes());
    }

    fn refill(&mut self) -> io::Result<()> {
        self.out.clear();
        self.out_pos = 0;
        while self.out.is_empty() && !self.eof {
            let n = self.inner.read(&mut self.inbuf[self.in_len..])?;
            if n == 0 {
                self.eof = true;
                if self.pending_high.take().is_some() || self.in_len % 2 == 1 {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                break;
            }
            self.in_len += n;
            let whole = self.in_len & !1;
            for i in (0..whole).step_by(2) {
                let pair = [self.inbuf[i], self.inbuf[i + 1]];
                let unit = if self.little_endian { u16::from_le_bytes(pair) } else { u16::from_be_bytes(pair) };
                self.take_unit(unit);
            }
            self.inbuf.copy_within(whole..self.in_len, 0);
            self.in_len -= whole;
        }
        Ok(())
    }

    fn take_unit(&mut self, unit: u16) {
        match (self.pending_high.take(), unit) {
            (Some(high), 0xDC00..=0xDFFF) => {
                let c = 0x10000 + (((high as u32) - 0xD800) << 10) + ((unit as u32) - 0xDC00);
                self.push_char(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
            (prev, 0xD800..=0xDBFF) => {
                if prev.is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                self.pending_high = Some(unit);
            }
            (prev, _) => {
                if prev.is_some() {
                    self.push_char(char::REPLACEMENT_CHARACTER);
                }
                let c = char::from_u32(unit as u32).unwrap_or(char::REPLACEMENT_CHARACTER);
                self.push_char(c);
            }
        }
    }
}

impl<R: Read> Read for Utf16ToUtf8<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.out_pos >= self.out.len() {
            self.refill()?;
        }
        let n = (self.out.len() - self.out_pos).min(buf.len());
        buf[..n].copy_from_slice(&self.out[self.out_pos..self.out_pos + n]);
        self.out_pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(bytes: Vec<u8>) -> (String, OpenedLog) {
        let mut opened = decode(Box::new(io::Cursor::new(bytes))).unwrap();
        let mut out = Vec::new();
        opened.reader.read_to_end(&mut out).unwrap();
        (String::from_utf8(out).unwrap(), opened)
    }

    #[test]
    fn utf16le_with_bom() {
        let text = "Loss.cu:245: block: [0,0,0] — ✓\n";
        let mut bytes = vec![0xff, 0xfe];
        for u in text.encode_utf16() {
            bytes.extend_from_slice(&u.to_le_bytes());
        }
        let (s, o) = read_all(bytes);
        assert_eq!(s, text);
        assert_eq!(o.encoding, Encoding::Utf16Le);
    }

    #[test]
    fn utf16be_without_bom_is_sniffed() {
        let text = "RuntimeError: CUDA error: device-side assert triggered\n";
        let mut bytes = Vec::new();
        for u in text.encode_utf16() {
            bytes.extend_from_slice(&u.to_be_bytes());
        }
        let (s, o) = read_all(bytes);
        assert_eq!(s, text);
        assert_eq!(o.encoding, Encoding::Utf16Be);
    }

    #[test]
    fn gzip_is_unwrapped() {
        use std::io::Write;
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"hello\nworld\n").unwrap();
        let (s, o) = read_all(enc.finish().unwrap());
        assert_eq!(s, "hello\nworld\n");
        assert!(o.gzip);
    }

    #[test]
    fn utf8_bom_is_dropped() {
        let (s, _) = read_all(b"\xef\xbb\xbfabc".to_vec());
        assert_eq!(s, "abc");
    }
}
