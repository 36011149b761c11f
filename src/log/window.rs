//! Windows of a log file read through a memory map, safe against the file shrinking while it is
//! read (a rerun doing `> train.log`).
//!
//! Touching a mapped page past a file's end raises SIGBUS. While a window is mapped its address
//! range is registered here, and a SIGBUS handler puts a zero page in place of the one that
//! faulted: the reader sees zeros where the file was cut, and `scan` cuts the window at the
//! file's current size. A fault anywhere else goes to the handler that was there before (or the
//! default action). Where this is not available (no free slot, not Linux), `map` answers None
//! and the caller reads the window with `pread` instead.

/// A mapped window of a file, registered with the SIGBUS guard while it lives.
pub struct Mapped {
    #[cfg(target_os = "linux")]
    map: memmap2::Mmap,
    #[cfg(target_os = "linux")]
    slot: usize,
}

impl std::ops::Deref for Mapped {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        #[cfg(target_os = "linux")]
        return &self.map;
        #[cfg(not(target_os = "linux"))]
        return &[];
    }
}

/// The size of the pages a mapped window's offset is aligned to.
pub fn page_size() -> usize {
    #[cfg(target_os = "linux")]
    return guard::page_size();
    #[cfg(not(target_os = "linux"))]
    return 4096;
}

impl Mapped {
    /// Maps `len` bytes of `file` from `offset` (a multiple of `page_size()`). None when the
    /// guard cannot cover it (the caller reads the bytes instead).
    pub fn map(file: &std::fs::File, offset: u64, len: usize) -> Option<Mapped> {
        #[cfg(target_os = "linux")]
        {
            if len == 0 || !guard::install() {
                return None;
            }
            let slot = guard::claim()?;
            // SAFETY: the map is read-only and private to this reader; a page that stops being
            // backed by the file (truncation) is replaced by zeros by the guard registered next.
            let map = match unsafe { memmap2::MmapOptions::new().offset(offset).len(len).map(file) } {
                Ok(m) => m,
                Err(_) => {
                    guard::release(slot);
                    return None;
                }
            };
            let _ = map.advise(memmap2::Advice::Sequential);
            guard::register(slot, map.as_ptr() as usize, map.len());
            Some(Mapped { map, slot })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = (file, offset, len);
            None
        }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Mapped {
    fn drop(&mut self) {
        // unregistered before the map is unmapped (the fields drop after this)
        guard::release(self.slot);
    }
}

#[cfg(target_os = "linux")]
mod guard {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::OnceLock;

    /// Windows alive at once: the one being searched, one queued and one being read, per
    /// reader; a few readers may run at once (tests).
    const SLOTS: usize = 16;

    static USED: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
    static LO: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static HI: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
    static PAGE: AtomicUsize = AtomicUsize::new(4096);
    /// The SIGBUS action that was in place before ours.
    static mut PREVIOUS: std::mem::MaybeUninit<libc::sigaction> = std::mem::MaybeUninit::uninit();

    pub fn page_size() -> usize {
        install();
        PAGE.load(Ordering::Relaxed)
    }

    /// Installs the handler once; false if it could not be.
    pub fn install() -> bool {
        static DONE: OnceLock<bool> = OnceLock::new();
        *DONE.get_or_init(|| {
            // SAFETY: sysconf and sigaction are called with valid arguments; PREVIOUS is written
            // here once, before the handler that reads it is installed.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE.store(page as usize, Ordering::Relaxed);
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER;
                libc::sigemptyset(&mut action.sa_mask);
                let previous = std::ptr::addr_of_mut!(PREVIOUS).cast::<libc::sigaction>();
                libc::sigaction(libc::SIGBUS, &action, previous) == 0
            }
        })
    }

    pub fn claim() -> Option<usize> {
        (0..SLOTS).find(|&i| USED[i].compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed).is_ok())
    }

    pub fn register(slot: usize, lo: usize, len: usize) {
        HI[slot].store(lo + len, Ordering::Release);
        LO[slot].store(lo, Ordering::Release);
    }

    pub fn release(slot: usize) {
        LO[slot].store(0, Ordering::Release);
        HI[slot].store(0, Ordering::Release);
        USED[slot].store(false, Ordering::Release);
    }

    /// Whether `addr` lies in a registered window.
    fn ours(addr: usize) -> bool {
        (0..SLOTS).any(|i| {
            let lo = LO[i].load(Ordering::Acquire);
            lo != 0 && lo <= addr && addr < HI[i].load(Ordering::Acquire)
        })
    }

    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo for SA_SIGINFO handlers; mmap and sigaction
        // are system calls, safe to make here. Only pages of a registered window are replaced.
        unsafe {
            let addr = (*info).si_addr() as usize;
            if ours(addr) {
                let page = PAGE.load(Ordering::Relaxed);
                let at = (addr & !(page - 1)) as *mut libc::c_void;
                let zero = libc::mmap(at, page, libc::PROT_READ, libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED, -1, 0);
                if zero != libc::MAP_FAILED {
                    return;
                }
            }
            // not ours: the action that was there before, or the default one (the faulting
            // access runs again on return and meets it)
            let previous = std::ptr::addr_of!(PREVIOUS).cast::<libc::sigaction>();
            let handler = (*previous).sa_sigaction;
            if handler == libc::SIG_DFL || handler == libc::SIG_IGN {
                let mut default: libc::sigaction = std::mem::zeroed();
                default.sa_sigaction = libc::SIG_DFL;
                libc::sigaction(libc::SIGBUS, &default, std::ptr::null_mut());
            } else if (*previous).sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) = std::mem::transmute(handler);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(handler);
                f(sig);
            }
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    /// Trial item 3: a log cut short after its window was mapped (a rerun doing `> train.log`
    /// while it is read). Touching the pages past the new end faulted (SIGBUS, exit 135); they
    /// now read as zeros, and the bytes before the cut are intact.
    #[test]
    fn pages_past_a_truncated_end_read_as_zeros() {
        let page = page_size();
        let path = std::env::temp_dir().join(format!("cudasleuth-window-{}.log", std::process::id()));
        std::fs::write(&path, vec![b'x'; 4 * page]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let map = Mapped::map(&file, 0, 4 * page).expect("mapped");
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(page as u64 + 10).unwrap();
        let bytes: &[u8] = &map;
        assert_eq!(bytes[page + 9], b'x');
        assert_eq!(bytes[page + 10], 0);
        assert_eq!(std::hint::black_box(bytes[3 * page + 5]), 0);
        assert!(bytes[2 * page..].iter().all(|b| *b == 0));
        drop(map);
        let _ = std::fs::remove_file(&path);
    }
}
