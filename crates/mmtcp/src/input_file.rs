//! Reading a file the user named (a scenario, a trace): only a regular file, and only up to a
//! size, so that a FIFO (which blocks until a writer comes) or a device such as `/dev/zero`
//! (which never ends) is an error instead of a hang or an exhausted memory.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The largest scenario file read: far beyond any hand-written or generated scenario.
pub const MAX_SCENARIO_BYTES: u64 = 64 << 20;
/// The largest trace file read (hours of per-millisecond rows).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// The text of the regular file at `path`, at most `limit` bytes; `Err` says why not, in words
/// that complete "cannot read ...: ".
pub fn read_text(path: &Path, limit: u64) -> Result<String, String> {
    let metadata = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_string(),
        _ => e.to_string(),
    })?;
    if !metadata.is_file() {
        let what = if metadata.is_dir() { "a directory" } else { "not a regular file (a pipe or a device?)" };
        return Err(format!("it is {what}"));
    }
    if metadata.len() > limit {
        return Err(format!("it holds {} bytes, more than the {limit} allowed", metadata.len()));
    }
    let mut text = String::new();
    File::open(path).and_then(|f| f.take(limit + 1).read_to_string(&mut text)).map_err(|e| e.to_string())?;
    if text.len() as u64 > limit {
        return Err(format!("it grew past the {limit} bytes allowed while being read"));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_reads_and_others_are_refused() {
        let dir = std::env::temp_dir().join(format!("mmtcp-input-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("t.csv");
        std::fs::write(&file, "0,1Gbps\n").unwrap();
        assert_eq!(read_text(&file, 100), Ok("0,1Gbps\n".to_string()));
        assert!(read_text(&file, 4).unwrap_err().contains("more than the 4 allowed"));
        assert!(read_text(&dir, 100).unwrap_err().contains("a directory"));
        assert_eq!(read_text(&dir.join("none"), 100), Err("no such file".to_string()));
        #[cfg(unix)]
        {
            // A device that never ends, and one that would block: refused without reading.
            assert!(read_text(Path::new("/dev/zero"), 100).unwrap_err().contains("not a regular file"));
            let fifo = dir.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                assert!(read_text(&fifo, 100).unwrap_err().contains("not a regular file"));
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
