//! Known facts travel with a transcript: the request for a later transcript lists the
//! related facts extracted earlier (and not the unrelated ones), so the model can skip a
//! repeat or name the fact its new one replaces.

use serde_json::json;

use crate::support::mock::Mock;
use crate::support::{TestEnv, bullets, transcript};

const NEOVIM: &str = "Uses Neovim as the main editor.";
const HELIX: &str = "Uses Helix as the main editor.";
const MARATHON: &str = "Wants to finish a marathon in under four hours.";
const KNOWN_HEADER: &str = "Known facts, already remembered";

#[test]
fn a_later_transcript_is_sent_with_the_related_facts_it_may_replace() {
    let env = TestEnv::new();
    env.create_vault("gamma");
    env.add_transcript(
        "gamma",
        "2025-07-01-0900-editor.md",
        &transcript(
            "2025-07-01",
            "09:00",
            "Editor",
            &format!(
                "I live in Neovim all day.\n\nremember: Preferences | global | {NEOVIM}\n\
                 remember: Goals | global | {MARATHON}"
            ),
        ),
    );
    let mock = Mock::start();

    env.extract(&mock, &[], 0);

    let first = mock.requests();
    assert_eq!(first.len(), 1);
    assert!(
        !first[0].user_text().contains(KNOWN_HEADER),
        "nothing is known yet"
    );

    env.add_transcript(
        "gamma",
        "2025-07-02-0900-switch.md",
        &transcript(
            "2025-07-02",
            "09:00",
            "Switch",
            &format!(
                "I moved from Neovim to Helix as my main editor this month.\n\n\
                 remember: Preferences | global | {HELIX} | replaces: {NEOVIM}"
            ),
        ),
    );

    let report = env.extract(&mock, &[], 0);

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let text = requests[1].user_text();
    let (known, transcript) = text
        .split_once("<transcript")
        .expect("the transcript is fenced");
    assert!(known.contains(KNOWN_HEADER), "{known}");
    assert!(known.contains(&format!("- {NEOVIM}\n")), "{known}");
    assert!(
        !known.contains(MARATHON),
        "an unrelated fact stays home: {known}"
    );
    assert!(transcript.contains("moved from Neovim to Helix"));
    assert_eq!(report["facts"]["replaced"], 1, "{report}");
    assert_eq!(
        bullets(&env.memory()),
        [MARATHON, HELIX],
        "Goals come before Preferences"
    );
    let show = env
        .cmd()
        .args(["memory", "show", "--json"])
        .assert()
        .code(0);
    let show = crate::support::report(show.get_output());
    let texts: Vec<&serde_json::Value> = show["facts"]
        .as_array()
        .expect("facts")
        .iter()
        .map(|f| &f["text"])
        .collect();
    assert!(!texts.contains(&&json!(NEOVIM)), "{show}");
}

#[test]
fn another_vaults_fact_is_never_a_known_fact_even_when_it_shares_words() {
    use crate::support::fixture::LANTERNFISH;

    let env = TestEnv::with_fixtures();
    let mock = Mock::start();
    env.extract(&mock, &[], 0);
    // Shares "indexes", "object storage", "local disk" and "Lanternfish" with alpha's fact.
    let shared = "Like Lanternfish, Heron keeps its indexes in object storage, not on local disk.";
    for (vault, date) in [("beta", "2025-06-22"), ("alpha", "2025-06-23")] {
        env.add_transcript(
            vault,
            &format!("{date}-0900-storage.md"),
            &transcript(
                date,
                "09:00",
                "Storage",
                &format!("{shared}\n\nremember: Goals | global | Wants {vault} backups tested."),
            ),
        );
        env.extract(&mock, &[], 0);
    }

    let requests = mock.requests();
    assert_eq!(requests.len(), 5);
    let known = |i: usize| -> String {
        let text = requests[i].user_text();
        let (known, transcript) = text.split_once("<transcript").expect("fenced");
        assert!(transcript.contains(shared), "{text}");
        known.to_owned()
    };
    let beta = known(3);
    assert!(
        !beta.contains(LANTERNFISH),
        "alpha's vault fact stays out of beta's request: {beta}"
    );
    let alpha = known(4);
    assert!(
        alpha.contains(&format!("- {LANTERNFISH}\n")),
        "in alpha's own request it is a known fact: {alpha}"
    );
}
