//! Reading the `.npy` files the shim dumps (format versions 1–3, little-endian, C order).

use std::path::Path;

#[derive(Debug, Clone)]
pub struct Array {
    pub shape: Vec<usize>,
    /// The values as f64 (labels and indices fit exactly below 2^53).
    pub values: Vec<f64>,
    pub dtype: String,
}

fn header_value<'a>(header: &'a str, key: &str) -> Option<&'a str> {
    let at = header.find(&format!("'{key}'"))? + key.len() + 2;
    let rest = header[at..].trim_start().strip_prefix(':')?.trim_start();
    Some(rest)
}

pub fn read(path: &Path) -> Result<Array, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not a .npy file".into());
    }
    let (hlen, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unsupported .npy version {v}")),
    };
    let header = std::str::from_utf8(bytes.get(start..start + hlen).ok_or("header cut off")?).map_err(|_| "header is not text")?;
    let descr = header_value(header, "descr").ok_or("no descr")?;
    let descr = descr.trim_start_matches(['\'', '"']);
    let descr: String = descr.chars().take_while(|c| *c != '\'' && *c != '"').collect();
    if header_value(header, "fortran_order").is_some_and(|v| v.starts_with("True")) {
        return Err("Fortran order is not supported".into());
    }
    let shape_txt = header_value(header, "shape").ok_or("no shape")?;
    let inner = shape_txt.trim_start_matches('(');
    let inner = &inner[..inner.find(')').ok_or("bad shape")?];
    let shape: Vec<usize> = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<usize>().map_err(|_| "bad shape"))
        .collect::<Result<_, _>>()?;
    let count: usize = shape.iter().product();
    let data = &bytes[start + hlen..];
    let (size, conv): (usize, fn(&[u8]) -> f64) = match descr.as_str() {
        "<i8" => (8, |b| i64::from_le_bytes(b.try_into().unwrap()) as f64),
        "<i4" => (4, |b| i32::from_le_bytes(b.try_into().unwrap()) as f64),
        "<i2" => (2, |b| i16::from_le_bytes(b.try_into().unwrap()) as f64),
        "|i1" => (1, |b| b[0] as i8 as f64),
        "|u1" | "|b1" => (1, |b| b[0] as f64),
        "<u8" => (8, |b| u64::from_le_bytes(b.try_into().unwrap()) as f64),
        "<f8" => (8, |b| f64::from_le_bytes(b.try_into().unwrap())),
        "<f4" => (4, |b| f32::from_le_bytes(b.try_into().unwrap()) as f64),
        "<f2" => (2, |b| half_to_f64(u16::from_le_bytes(b.try_into().unwrap()))),
        other => return Err(format!("unsupported dtype {other}")),
    };
    if data.len() < count * size {
        return Err(format!("data cut off: {} bytes for {count} elements of {size}", data.len()));
    }
    let values = data[..count * size].chunks_exact(size).map(conv).collect();
    Ok(Array { shape, values, dtype: descr })
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        e => sign * (1.0 + frac / 1024.0) * 2f64.powi(i32::from(e) - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn npy(descr: &str, shape: &str, data: &[u8]) -> Vec<u8> {
        let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}");
        while (10 + header.len() + 1) % 64 != 0 {
            header.push(' ');
        }
        header.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        out
    }

    #[test]
    fn int64_and_float32() {
        let data: Vec<u8> = [0i64, 2, 3, -100].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = parse(&npy("<i8", "(2, 2)", &data)).unwrap();
        assert_eq!(a.shape, vec![2, 2]);
        assert_eq!(a.values, vec![0.0, 2.0, 3.0, -100.0]);
        let data: Vec<u8> = [0.5f32, 1.5].iter().flat_map(|v| v.to_le_bytes()).collect();
        let a = parse(&npy("<f4", "(2,)", &data)).unwrap();
        assert_eq!(a.values, vec![0.5, 1.5]);
        assert!(parse(b"garbage").is_err());
        assert!(parse(&npy("<i8", "(4,)", &[0u8; 8])).is_err(), "cut-off data");
    }
}
