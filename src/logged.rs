//! What a log line may say of a fact. A service's logs go to the journal, where no
//! `memory forget --purge` reaches, so a fact (or the words it came from) is named there by
//! its length alone; its words are logged only for a person watching a command with `-v`
//! on a terminal.
//!
//! It does not decide the log level (`cmd::init_logging` does) and logs nothing itself.

use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

static SHOW: AtomicBool = AtomicBool::new(false);

/// Whether log lines hold the words of facts from now on.
pub fn show_words(on: bool) {
    SHOW.store(on, Ordering::Relaxed);
}

/// A fact's words (or a quote's) as a log line may hold them: `{}` writes them when they
/// may be shown, else how long they are.
pub struct Words<'a>(pub &'a str);

impl fmt::Display for Words<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if SHOW.load(Ordering::Relaxed) {
            f.write_str(self.0)
        } else {
            write!(
                f,
                "({} characters, shown with -v on a terminal)",
                self.0.chars().count()
            )
        }
    }
}

impl fmt::Debug for Words<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_shown_only_when_allowed() {
        show_words(false);
        assert_eq!(
            Words("Sees Dr Smith.").to_string(),
            "(14 characters, shown with -v on a terminal)"
        );
        show_words(true);
        assert_eq!(Words("Sees Dr Smith.").to_string(), "Sees Dr Smith.");
        show_words(false);
    }
}
