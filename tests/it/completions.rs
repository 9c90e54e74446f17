//! `memloop completions SHELL` and `memloop man`: generated from the same declarations as
//! `--help`, so every subcommand a user can type is offered.

use crate::support::TestEnv;

#[test]
fn completions_offer_every_subcommand_in_each_shell() {
    let env = TestEnv::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = env.cmd().args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in ["extract", "memory", "daemon", "service", "doctor", "forget"] {
            assert!(script.contains(sub), "{shell} completions lack {sub}");
        }
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    TestEnv::new()
        .cmd()
        .args(["completions", "tcsh"])
        .assert()
        .code(2);
}

#[test]
fn the_man_page_is_roff_naming_the_subcommands() {
    let out = TestEnv::new().cmd().arg("man").output().unwrap();
    assert!(out.status.success());
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.starts_with(".ie"), "not roff: {}", &page[..40]);
    assert!(page.contains(".TH memloop 1"));
    for sub in ["extract", "daemon", "service", "doctor", "completions"] {
        assert!(page.contains(sub), "man page lacks {sub}");
    }
}
