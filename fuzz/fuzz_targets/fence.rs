//! The insights fence: `find`, `inner`, `splice` and `strip` on arbitrary documents.
//!
//! Input: the first byte picks no block / a block; the rest is split at the first 0xFF into
//! the document (any bytes: BOM, CRLF, invalid UTF-8) and the block (lossy UTF-8).
//!
//! Invariants when a splice succeeds: with a fence, every byte before its inner part and
//! after it is unchanged and the result still has a fence at the same place; without one,
//! the document is a byte-exact prefix of the result, which now has a fence. A splice of the
//! result with the same block changes nothing.
#![no_main]

use libfuzzer_sys::fuzz_target;
use memloop::fence::{self, find, splice};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (doc, block) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (
            &rest[..i],
            String::from_utf8_lossy(&rest[i + 1..]).into_owned(),
        ),
        None => (rest, String::new()),
    };
    let block = (mode & 1 == 1).then_some(block.as_str());

    let _ = fence::inner(doc);
    if let Ok(text) = std::str::from_utf8(doc) {
        let _ = fence::strip(text);
    }
    let before = find(doc);
    let Ok(Some(out)) = splice(doc, block) else {
        return;
    };
    let after = find(&out).expect("a spliced document has well-formed markers");
    let after = after.expect("a spliced document has a fence");
    match before.expect("splice succeeded, so find did") {
        Some(fence) => {
            assert_eq!(
                out[..fence.inner.start],
                doc[..fence.inner.start],
                "bytes before the fence changed"
            );
            assert!(
                out.ends_with(&doc[fence.inner.end..]),
                "bytes after the fence changed"
            );
            assert_eq!(after.begin, fence.begin, "the fence moved");
        }
        None => {
            assert!(out.starts_with(doc), "appending changed the document");
            assert!(
                after.begin.start >= doc.len(),
                "the fence is not after the document"
            );
        }
    }
    assert_eq!(
        splice(&out, block),
        Ok(None),
        "a second splice changed the result"
    );
});
