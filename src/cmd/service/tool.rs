//! Running `systemctl`, `launchctl` and `id`: found on PATH, bounded in time, their output
//! read while they run (a chatty `launchctl print` cannot fill a pipe and stall), and the
//! failures that mean "no service manager here" told apart from the rest.
//!
//! It does not decide what to run or what an answer means for the service: `cmd::service`
//! and its `inspect` do.

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A command that changes something (`daemon-reload`, `enable --now`, `bootstrap`).
pub(super) const APPLY_TIMEOUT: Duration = Duration::from_secs(30);
/// A question (`is-enabled`, `print`): `doctor` asks them and must not wait long.
pub(super) const QUERY_TIMEOUT: Duration = Duration::from_secs(5);

/// What a command that ran said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Output {
    pub success: bool,
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    /// Its stderr (else stdout) in one line, for a message.
    pub fn said(&self) -> String {
        let text = if self.stderr.trim().is_empty() {
            &self.stdout
        } else {
            &self.stderr
        };
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// Whether it failed because there is no service manager to talk to: systemd's user
    /// instance is not running (a container, WSL, a session without a user bus).
    pub fn unreachable(&self) -> bool {
        !self.success
            && [
                "Failed to connect to bus",
                "Failed to connect to user scope bus",
            ]
            .iter()
            .any(|s| self.stderr.contains(s))
    }
}

/// Why a command did not run to its end.
#[derive(Debug, thiserror::Error)]
pub(super) enum ToolError {
    #[error("{0} not found on PATH")]
    Missing(String),
    #[error("`{command}` did not answer within {secs} s")]
    TimedOut { command: String, secs: u64 },
    #[error("could not run {command}: {source}")]
    Io {
        command: String,
        source: std::io::Error,
    },
}

/// Runs `command` (program first, found on PATH) with no input, waiting at most `timeout`;
/// killed after that.
pub(super) fn call(command: &[String], timeout: Duration) -> Result<Output, ToolError> {
    let Some((program, args)) = command.split_first() else {
        return Err(ToolError::Missing(String::new()));
    };
    let io = |source| ToolError::Io {
        command: command.join(" "),
        source,
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ToolError::Missing(program.clone()),
            _ => io(e),
        })?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let status = wait(&mut child, timeout).map_err(io)?;
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        return Err(ToolError::TimedOut {
            command: command.join(" "),
            secs: timeout.as_secs(),
        });
    };
    // A grandchild that kept the pipe open must not hold us: what came by now is enough.
    let collect =
        |rx: mpsc::Receiver<String>| rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default();
    Ok(Output {
        success: status.success(),
        code: status.code(),
        stdout: collect(stdout),
        stderr: collect(stderr),
    })
}

/// Reads a pipe to its end on its own thread.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
    });
    rx
}

/// The child's exit status, or `None` when it outlived `timeout`.
fn wait(child: &mut Child, timeout: Duration) -> std::io::Result<Option<std::process::ExitStatus>> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        if start.elapsed() > timeout {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Vec<String> {
        vec!["/bin/sh".into(), "-c".into(), script.into()]
    }

    #[test]
    fn a_command_that_outlives_its_timeout_is_killed() {
        let start = Instant::now();
        let err = call(&sh("sleep 30"), Duration::from_millis(200)).unwrap_err();
        assert!(matches!(err, ToolError::TimedOut { .. }), "{err}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_long_answer_does_not_fill_the_pipe_and_stall() {
        let out = call(
            &sh("head -c 1000000 /dev/zero | tr '\\0' x; echo oops >&2; exit 3"),
            Duration::from_secs(20),
        )
        .unwrap();
        assert_eq!(out.stdout.len(), 1_000_000);
        assert_eq!((out.success, out.code), (false, Some(3)));
        assert_eq!(out.said(), "oops");
    }

    #[test]
    fn a_missing_program_is_named() {
        let err = call(&["memloop-no-such-tool".to_owned()], Duration::from_secs(1)).unwrap_err();
        assert!(
            matches!(&err, ToolError::Missing(p) if p == "memloop-no-such-tool"),
            "{err}"
        );
    }

    #[test]
    fn no_user_bus_is_told_apart_from_other_failures() {
        let out = |stderr: &str| Output {
            success: false,
            code: Some(1),
            stdout: String::new(),
            stderr: stderr.to_owned(),
        };
        assert!(out("Failed to connect to bus: No medium found").unreachable());
        assert!(!out("Failed to enable unit: Unit file x.timer does not exist.").unreachable());
    }
}
