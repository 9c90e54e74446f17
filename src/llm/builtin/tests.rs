//! Unit tests for the builtin extractor: realistic sentences and their facts, each skip rule
//! against a twin that passes, the splitter, category mapping, and property tests that any
//! input yields only well-formed facts. They call the extractor directly, with no provider.

use super::rules::third_person_verb;
use super::segment::{End, sentences};
use super::*;
use crate::fact::MAX_FACT_CHARS;
use proptest::prelude::*;

const ID: &str = "Identity";
const GO: &str = "Goals";
const PR: &str = "Preferences";
const PC: &str = "Project Context";
const PA: &str = "Patterns";

fn defaults() -> Vec<String> {
    [ID, GO, PR, PC, PA].map(String::from).to_vec()
}

fn texts(turn: &str) -> Vec<String> {
    extract(&[turn], &defaults())
        .into_iter()
        .map(|c| c.text)
        .collect()
}

#[test]
fn realistic_sentences_yield_exactly_the_expected_fact() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "I'm a staff engineer at Acme.",
            ID,
            "Is a staff engineer at Acme.",
        ),
        (
            "I am a data scientist, mostly working in Python.",
            ID,
            "Is a data scientist.",
        ),
        (
            "Btw, I'm an SRE at a fintech startup lol",
            ID,
            "Is an SRE at a fintech startup.",
        ),
        (
            "I'm a designer, not a developer.",
            ID,
            "Is a designer, not a developer.",
        ),
        (
            "I'm a staff engineer at Acme and I do backend.",
            ID,
            "Is a staff engineer at Acme.",
        ),
        (
            "I'm a Python dev mostly, new to Rust.",
            ID,
            "Is a Python dev.",
        ),
        (
            "I work as a nurse in Berlin.",
            ID,
            "Works as a nurse in Berlin.",
        ),
        ("I work at Stripe.", ID, "Works at Stripe."),
        ("My name is Dana Scully.", ID, "Name is Dana Scully."),
        ("Call me Dana, not Danielle.", ID, "Goes by Dana."),
        ("My pronouns are she/her.", ID, "Pronouns are she/her."),
        ("I live in Lisbon.", ID, "Lives in Lisbon."),
        (
            "I'm based in the Netherlands.",
            ID,
            "Is based in the Netherlands.",
        ),
        (
            "I've been a nurse for fifteen years.",
            ID,
            "Has been a nurse for fifteen years.",
        ),
        (
            "I have 10+ years of experience with Go.",
            ID,
            "Has 10+ years of experience with Go.",
        ),
        ("I have two kids.", ID, "Has two kids."),
        ("I'm allergic to peanuts.", ID, "Is allergic to peanuts."),
        ("I'm vegetarian.", ID, "Is vegetarian."),
        ("I don't eat pork.", ID, "Does not eat pork."),
        ("I have ADHD.", ID, "Has ADHD."),
        (
            "I prefer tabs over spaces.",
            PR,
            "Prefers tabs over spaces.",
        ),
        (
            "I prefer my coffee black.",
            PR,
            "Prefers their coffee black.",
        ),
        (
            "I generally prefer direct answers.",
            PR,
            "Generally prefers direct answers.",
        ),
        (
            "I really prefer short answers because I skim.",
            PR,
            "Prefers short answers.",
        ),
        ("I like my answers short.", PR, "Likes their answers short."),
        (
            "I don't like long explanations.",
            PR,
            "Does not like long explanations.",
        ),
        (
            "I use Neovim, not VS Code.",
            PR,
            "Uses Neovim, not VS Code.",
        ),
        (
            "I use pnpm instead of npm.",
            PR,
            "Uses pnpm instead of npm.",
        ),
        (
            "I always use Python 3.11 for scripts.",
            PR,
            "Always uses Python 3.11 for scripts.",
        ),
        ("I don't use Windows.", PR, "Does not use Windows."),
        (
            "My favorite editor is Helix.",
            PR,
            "Favorite editor is Helix.",
        ),
        (
            "I'm a big fan of Postgres.",
            PR,
            "Is a big fan of Postgres.",
        ),
        ("- I prefer dark mode", PR, "Prefers dark mode."),
        (
            "I use [rg](https://github.com/BurntSushi/ripgrep) daily.",
            PR,
            "Uses rg daily.",
        ),
        ("i prefer short answers tbh", PR, "Prefers short answers."),
        ("I use Neovim 😀", PR, "Uses Neovim."),
        (
            "I prefer **tabs** over _spaces_.",
            PR,
            "Prefers tabs over spaces.",
        ),
        (
            "I prefer MySQL vs. Postgres.",
            PR,
            "Prefers MySQL vs. Postgres.",
        ),
        (
            "My goal is to ship Lanternfish by March.",
            GO,
            "Goal is to ship Lanternfish by March.",
        ),
        (
            "My main goal this year is to grow my team.",
            GO,
            "Main goal this year is to grow their team.",
        ),
        (
            "My long-term goal is to get promoted.",
            GO,
            "Long-term goal is to get promoted.",
        ),
        (
            "I'm building a search engine in Rust.",
            GO,
            "Is building a search engine in Rust.",
        ),
        (
            "I want to learn Rust this year.",
            GO,
            "Wants to learn Rust this year.",
        ),
        (
            "I want to build a compiler someday.",
            GO,
            "Wants to build a compiler someday.",
        ),
        (
            "I'm working on Lanternfish, a search engine.",
            GO,
            "Is working on Lanternfish, a search engine.",
        ),
        ("I'm learning Japanese.", GO, "Is learning Japanese."),
        (
            "We decided to use SQLite for the ledger.",
            PC,
            "Decided to use SQLite for the ledger.",
        ),
        (
            "We decided not to support Windows.",
            PC,
            "Decided not to support Windows.",
        ),
        (
            "We're going with Postgres.",
            PC,
            "Decided to go with Postgres.",
        ),
        ("We chose Axum over Actix.", PC, "Chose Axum over Actix."),
        (
            "We use Terraform for all infra.",
            PC,
            "Uses Terraform for all infra.",
        ),
        (
            "I always write tests first.",
            PA,
            "Always writes tests first.",
        ),
        ("I usually go to bed late.", PA, "Usually goes to bed late."),
        (
            "I never deploy on Fridays.",
            PA,
            "Never deploys on Fridays.",
        ),
        (
            "I tend to over-engineer my side projects.",
            PA,
            "Tends to over-engineer their side projects.",
        ),
        (
            "I usually don't eat breakfast.",
            PA,
            "Usually does not eat breakfast.",
        ),
        (
            "I often review PRs before I code.",
            PA,
            "Often reviews PRs before they code.",
        ),
    ];
    assert!(cases.len() >= 40);
    let mut wrong = Vec::new();
    for &(input, category, text) in cases {
        let scope = if category == PC {
            Scope::Vault
        } else {
            Scope::Global
        };
        let want = vec![(category.to_owned(), text.to_owned(), scope)];
        let got: Vec<_> = extract(&[input], &defaults())
            .into_iter()
            .map(|c| (c.category, c.text, c.scope))
            .collect();
        if got != want {
            wrong.push(format!("{input:?}: got {got:?}, want {want:?}"));
        }
        if let Err(refusal) = crate::fact::check(text) {
            wrong.push(format!(
                "{text:?} is refused by the policy filter: {refusal}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each skipped sentence next to a twin the same pattern accepts, so every row proves
/// that its skip rule, and not a missing pattern, is what drops the sentence.
#[test]
fn each_skip_rule_drops_a_sentence_whose_twin_yields_a_fact() {
    let cases: &[(&str, &str)] = &[
        (
            "```\nI'm a staff engineer at Acme.\n```",
            "I'm a staff engineer at Acme.",
        ),
        (
            "> I'm a staff engineer at Acme.",
            "I'm a staff engineer at Acme.",
        ),
        (
            "    I'm a staff engineer at Acme.",
            "I'm a staff engineer at Acme.",
        ),
        (
            "# I'm a staff engineer at Acme",
            "I'm a staff engineer at Acme.",
        ),
        ("I use `uv` instead of pip.", "I use uv instead of pip."),
        ("She wrote \"I'm a nurse.\" in her bio.", "I'm a nurse."),
        (
            "I'm a “senior” engineer at Acme.",
            "I'm a senior engineer at Acme.",
        ),
        ("I prefer tabs, right?", "I prefer tabs, right."),
        ("I prefer tabs...", "I prefer tabs."),
        (
            "If I were a manager, I'd prefer fewer meetings.",
            "I prefer fewer meetings.",
        ),
        ("I'd prefer Go.", "I prefer Go."),
        ("I would use Go for that.", "I use Go for scripts."),
        (
            "My boss said I'm a natural leader.",
            "I'm a natural leader.",
        ),
        (
            "I'm a staff engineer, my manager says.",
            "I'm a staff engineer, as I said.",
        ),
        ("Apparently I'm a morning person.", "I'm a morning person."),
        ("I'm going to use Go.", "I use Go."),
        ("I'm trying Go.", "I'm learning Go."),
        ("I'm a nurse right now.", "I'm a nurse."),
        ("I use Vim today.", "I use Vim."),
        ("I'm working on this bug.", "I'm working on Lanternfish."),
        ("I'm a morning person /s", "I'm a morning person."),
        (
            "Yeah right, I'm a morning person.",
            "Yeah, I'm a morning person.",
        ),
        ("I'm a morning person 🙄", "I'm a morning person 😀"),
        ("I think I prefer Go.", "I prefer Go."),
        ("I kinda prefer Go.", "I prefer Go."),
        ("I used to use Emacs.", "I use Emacs."),
        ("For example, I prefer tabs.", "Also, I prefer tabs."),
        ("I ~~prefer~~ tabs.", "I prefer tabs."),
        (
            "Pretend you're my manager. I'm a nurse.",
            "You're my manager. I'm a nurse.",
        ),
        (
            "Translate to French: I prefer tea.",
            "Noted: I prefer tea.\nI prefer tea.",
        ),
        (
            "I'm a staff engineer at Acme.I prefer tabs",
            "I'm a staff engineer at Acme. I prefer tabs",
        ),
        (
            &["I prefer answers that"; 10].join(" "),
            "I prefer answers that are short.",
        ),
    ];
    let mut wrong = Vec::new();
    for (skipped, twin) in cases {
        let dropped = texts(skipped);
        if !dropped.is_empty() {
            wrong.push(format!("{skipped:?} yields {dropped:?}"));
        }
        if texts(twin).is_empty() {
            wrong.push(format!("twin {twin:?} yields nothing"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn conversational_and_ambiguous_sentences_yield_nothing() {
    let cases = [
        "I like this approach.",
        "I prefer the second option.",
        "I prefer your version.",
        "I prefer B.",
        "I prefer that.",
        "I like how you explained that.",
        "I like where this is going.",
        "I use it every day.",
        "I use the same one.",
        "I'm an idiot, forgot the semicolon.",
        "I'm a little confused by the error.",
        "I'm a bit of a perfectionist.",
        "I'm an AI.",
        "I'm a fan.",
        "I'm an expert.",
        "I'm tired.",
        "I'm not sure.",
        "I'm looking at the logs.",
        "I'm thinking about Rust.",
        "We decided to take a break.",
        "We're going with option 2.",
        "We use the helper from before.",
        "I always do this.",
        "I always thought so.",
        "I never understood monads tbh",
        "I want to see the logs.",
        "I want to ship this fix by tonight.",
        "I'm building the Docker image.",
        "I'm building a new feature.",
        "I'm working on PR 4312.",
        "I'm working on Monday's release notes.",
        "I'm learning a lot.",
        "Maybe I'm a perfectionist.",
        "I'm a staff engineer at",
        "I work at night.",
        "I live in the terminal lol",
        "My name is not important.",
        "My goal is clarity.",
        "My goal for this session is to fix the tests.",
        "Could you tell me if I use too many clones",
        "I have a question.",
        "I have a meeting at 3.",
        "I'm a fan of yours.",
        "I'm a staff engineer at Acme 😂",
        "Honestly I hate this.",
        "ok",
        "Thanks!",
    ];
    assert!(cases.len() >= 25);
    let leaked: Vec<String> = cases
        .iter()
        .filter_map(|input| {
            let got = texts(input);
            (!got.is_empty()).then(|| format!("{input:?}: {got:?}"))
        })
        .collect();
    assert!(leaked.is_empty(), "{}", leaked.join("\n"));
}

#[test]
fn a_quotation_spanning_sentences_is_skipped_whole() {
    let turn = "He wrote: \"Hi. I'm a staff engineer at Acme. Thanks.\" I use Neovim.";
    assert_eq!(texts(turn), ["Uses Neovim."]);
}

#[test]
fn sentences_split_at_punctuation_but_not_inside_abbreviations_or_versions() {
    let paragraph = "I use Python 3.11 daily. I prefer Go, e.g. for CLIs! Why? \
                     J. R. R. Tolkien wrote it\nsee example.com; Acme Inc. Done";
    let got: Vec<(String, End)> = sentences(paragraph)
        .into_iter()
        .map(|s| (s.text, s.end))
        .collect();
    let want = [
        ("I use Python 3.11 daily.", End::Stop),
        ("I prefer Go, e.g. for CLIs!", End::Stop),
        ("Why?", End::Question),
        ("J. R. R. Tolkien wrote it", End::Open),
        ("see example.com;", End::Stop),
        ("Acme Inc.", End::Stop),
        ("Done", End::Open),
    ]
    .map(|(t, e)| (t.to_owned(), e));
    assert_eq!(got, want);
}

#[test]
fn each_sentence_of_a_turn_is_read_on_its_own_in_order() {
    let turn = "Hi! I'm a dev at Acme Inc. I'm tired today. I prefer tabs; I use Neovim.\n\n\
                ```rust\nfn main() {}\n```\nWe decided to use SQLite.";
    let want = [
        "Is a dev at Acme Inc.",
        "Prefers tabs.",
        "Uses Neovim.",
        "Decided to use SQLite.",
    ];
    assert_eq!(texts(turn), want);
}

#[test]
fn duplicates_within_a_call_are_kept_once_in_order_of_first_appearance() {
    let turns = [
        "I use Neovim.",
        "I prefer tabs. I use neovim.",
        "I use Neovim!",
    ];
    let got: Vec<String> = extract(&turns, &defaults())
        .into_iter()
        .map(|c| c.text)
        .collect();
    assert_eq!(got, ["Uses Neovim.", "Prefers tabs."]);
}

#[test]
fn extraction_is_deterministic() {
    let turns = [
        "I'm a staff engineer at Acme. I prefer tabs over spaces.",
        "We decided to use SQLite. I always write tests first.",
    ];
    let first = extract(&turns, &defaults());
    assert_eq!(first.len(), 4);
    for _ in 0..3 {
        assert_eq!(extract(&turns, &defaults()), first);
    }
}

#[test]
fn categories_map_onto_a_custom_prompt_by_synonym_else_the_first() {
    let custom = [
        "About Me",
        "Dietary Restrictions",
        "Work Preferences",
        "Objectives",
        "Habits",
    ]
    .map(String::from);
    let cases = [
        ("I'm a staff engineer at Acme.", "About Me"),
        ("I'm allergic to peanuts.", "Dietary Restrictions"),
        ("I prefer tabs over spaces.", "Work Preferences"),
        ("My goal is to ship Lanternfish by March.", "Objectives"),
        ("I always write tests first.", "Habits"),
        // nothing close to Project Context: the first category
        ("We decided to use SQLite.", "About Me"),
    ];
    for (input, want) in cases {
        let got = extract(&[input], &custom);
        assert_eq!(got.len(), 1, "{input:?}");
        assert_eq!(got[0].category, want, "{input:?}");
    }
}

#[test]
fn categories_keep_the_prompts_spelling_and_fall_back_to_a_neighbour() {
    let lower = ["identity", "PREFERENCES"].map(String::from);
    let cases = [
        (Slot::Identity, "identity"),
        (Slot::Health, "identity"),
        (Slot::Preferences, "PREFERENCES"),
        (Slot::Patterns, "PREFERENCES"),
        (Slot::Goals, "identity"),
    ];
    for (slot, want) in cases {
        assert_eq!(category(slot, &lower), want, "{slot:?}");
    }
    assert_eq!(category(Slot::ProjectContext, &[]), "Project Context");
    assert_eq!(category(Slot::Health, &[]), "Identity");
    let health = ["Identity", "Health"].map(String::from);
    assert_eq!(category(Slot::Health, &health), "Health");
}

#[test]
fn non_english_text_yields_nothing() {
    for turn in [
        "Ich bin ein Softwareentwickler bei Acme.",
        "Je préfère les tabulations aux espaces.",
        "Yo uso Neovim, no VS Code.",
        "私はエンジニアです。タブが好きです。",
        "Я предпочитаю короткие ответы.",
        "我是一名工程师，我喜欢简短的回答。",
        "أنا مهندس برمجيات.",
        "Eu moro em Lisboa e sou vegetariano.",
    ] {
        assert_eq!(texts(turn), Vec::<String>::new(), "{turn:?}");
    }
}

#[test]
fn verbs_agree_with_a_third_person_subject() {
    let cases = [
        ("write", "writes"),
        ("go", "goes"),
        ("have", "has"),
        ("fix", "fixes"),
        ("push", "pushes"),
        ("try", "tries"),
        ("deploy", "deploys"),
        ("miss", "misses"),
    ];
    for (verb, want) in cases {
        assert_eq!(third_person_verb(verb), want);
    }
}

fn well_formed(text: &str) -> bool {
    !text.trim().is_empty()
        && text.chars().count() <= MAX_FACT_CHARS
        && !text.contains(['\n', '\r'])
        && text.ends_with('.')
}

proptest! {
    #[test]
    fn arbitrary_input_never_panics_and_yields_well_formed_facts(
        turns in proptest::collection::vec(any::<String>(), 0..4),
        cats in proptest::collection::vec("\\PC{0,12}", 0..4),
    ) {
        let refs: Vec<&str> = turns.iter().map(String::as_str).collect();
        for fact in extract(&refs, &cats) {
            prop_assert!(well_formed(&fact.text), "{:?}", fact.text);
        }
    }

    #[test]
    fn pattern_openings_with_arbitrary_tails_yield_well_formed_facts(
        opening in prop::sample::select(vec![
            "I'm a ", "I am an ", "I prefer ", "I use ", "I like my ", "My name is ",
            "My goal is to ", "I'm building ", "I want to learn ", "We decided to ",
            "We're going with ", "I always ", "I usually don't ", "I have ",
            "I'm allergic to ", "I live in ", "My favorite ", "I work at ",
        ]),
        tail in "\\PC{0,80}",
        end in prop::sample::select(vec!["", ".", "!", "?", "...", "\n"]),
    ) {
        let turn = format!("{opening}{tail}{end}");
        for fact in extract(&[turn.as_str()], &defaults()) {
            prop_assert!(well_formed(&fact.text), "{:?}", fact.text);
            prop_assert!(defaults().contains(&fact.category));
        }
    }
}

/// A comma or "and" inside the phrase a fact ends on is never where it is cut: the phrase
/// is kept whole, or, when it cannot be kept safely, nothing is written.
#[test]
fn a_phrase_running_past_a_comma_is_kept_whole_or_yields_nothing() {
    let cases: &[(&str, Option<&str>)] = &[
        (
            "I usually prefer quiet, nature-filled areas.",
            Some("Usually prefers quiet, nature-filled areas."),
        ),
        (
            "I'm a tall, slim, brunette man.",
            Some("Is a tall, slim, brunette man."),
        ),
        (
            "I like to read, cook, and travel.",
            Some("Likes to read, cook, and travel."),
        ),
        (
            "I like hiking, biking and swimming.",
            Some("Likes hiking, biking and swimming."),
        ),
        (
            "I have a dog, a cat, and a fish.",
            Some("Has a dog, a cat, and a fish."),
        ),
        (
            "I like Kendrick Lamar, J. Cole, and Drake.",
            Some("Likes Kendrick Lamar, J. Cole, and Drake."),
        ),
        (
            "I like to go for walks, play with my dogs, and read.",
            Some("Likes to go for walks, play with their dogs, and read."),
        ),
        (
            "I like most fruits except bananas.",
            Some("Likes most fruits except bananas."),
        ),
        (
            "My favorite book is The Catcher in the Rye by J.D. Salinger.",
            Some("Favorite book is The Catcher in the Rye by J.D. Salinger."),
        ),
        ("I'm a city girl, myself.", Some("Is a city girl.")),
        (
            "I prefer quiet, relaxing places.",
            Some("Prefers quiet, relaxing places."),
        ),
        // A bracket that closes mid-phrase, "but" between two modifiers, a list after a
        // verb the fact conjugates: no cut is safe.
        ("I prefer quiet (nature-filled) areas.", None),
        ("I like quiet but lively places.", None),
        ("I always go to the gym, read and cook.", None),
        (
            "I usually make hamburgers, hot dogs, and roasted vegetables.",
            None,
        ),
    ];
    let mut wrong = Vec::new();
    for &(input, want) in cases {
        let got = texts(input);
        let want: Vec<String> = want.into_iter().map(String::from).collect();
        if got != want {
            wrong.push(format!("{input:?}: got {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Each fact that needs the chat to make sense next to a twin that says the same kind of
/// thing on its own, so every row proves the pointer, not a missing pattern, drops it.
#[test]
fn a_fact_that_needs_the_chat_yields_nothing_while_its_twin_does() {
    let cases: &[(&str, &str)] = &[
        ("I'm a big fan.", "I'm a big football fan."),
        ("I'm a huge fan too!", "I'm a huge fan of Postgres too!"),
        ("I'm a big fan of his.", "I'm a big fan of Miles Davis."),
        ("I'm a fan of that band.", "I'm a fan of the band Low."),
        ("I like his sense of humor.", "I like a dry sense of humor."),
        (
            "I like to take him for walks.",
            "I like to take my dog for walks.",
        ),
        (
            "I have a daughter and her name is Mia.",
            "I have a daughter and her name is Mia.",
        ),
        (
            "I like the ones that are really scary.",
            "I like horror movies that are really scary.",
        ),
        (
            "I like a lot of different ones.",
            "I like a lot of different genres.",
        ),
        (
            "I like to do a lot of the same things.",
            "I like to do a lot of outdoor things.",
        ),
        (
            "I like the fifth one.",
            "I like the fifth Harry Potter book.",
        ),
        ("I like to do that every day.", "I like to run every day."),
        (
            "I like to read such books.",
            "I like to read books such as Dune.",
        ),
        ("I like the people.", "I like the people of Lisbon."),
        (
            "My favorite part is working with people.",
            "My favorite thing about Ohio is the food.",
        ),
    ];
    let mut wrong = Vec::new();
    for &(needs_chat, twin) in cases {
        let dropped = texts(needs_chat);
        // The daughter row shows "her" is kept when the fact names who she is.
        if needs_chat != twin && !dropped.is_empty() {
            wrong.push(format!("{needs_chat:?} yields {dropped:?}"));
        }
        if texts(twin).is_empty() {
            wrong.push(format!("twin {twin:?} yields nothing"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What the grounding check relies on: the evidence is the user's own words, verbatim.
fn evidence_is_in_the_turns(turns: &[&str]) -> Result<(), String> {
    let said: Vec<String> = turns.iter().map(|t| collapsed(t)).collect();
    for fact in extract(turns, &defaults()) {
        let evidence = fact.evidence.as_deref().map(collapsed).unwrap_or_default();
        if evidence.is_empty() || !said.iter().any(|t| t.contains(&evidence)) {
            return Err(format!("{:?} has evidence {:?}", fact.text, fact.evidence));
        }
    }
    Ok(())
}

#[test]
fn every_facts_evidence_is_a_substring_of_the_users_turn() {
    let turns = [
        "Hi!  I'm a staff engineer at Acme.\n\nI prefer tabs;   I use Neovim.",
        "- I prefer **dark mode**\n- I use [rg](https://github.com/BurntSushi/ripgrep) daily.",
        "Btw, I'm an SRE at a fintech startup lol",
        "I like to read, cook,\n and travel. My favorite book is The Catcher in the Rye by J.D. Salinger.",
        "```\nI use Emacs.\n```\nWe decided to use SQLite for the ledger.",
    ];
    assert_eq!(extract(&turns, &defaults()).len(), 9);
    evidence_is_in_the_turns(&turns).unwrap();
}

proptest! {
    #[test]
    fn evidence_is_always_a_substring_of_a_turn(
        opening in prop::sample::select(vec![
            "I'm a ", "I prefer ", "I use ", "I like ", "- I always ", "Hi. My name is ",
            "We decided to ", "I have ", "ok,  I'm building ",
        ]),
        tail in "[ a-zA-Z,.;!'\n]{0,60}",
    ) {
        let turn = format!("{opening}{tail}");
        prop_assert!(evidence_is_in_the_turns(&[turn.as_str()]).is_ok(), "{turn:?}");
    }
}

#[test]
fn a_facts_first_words_choose_its_category_in_the_prompts_spelling() {
    let cats: Vec<String> = ["About Me", "Likes", "Plans", "Habits"]
        .map(String::from)
        .to_vec();
    assert_eq!(
        category_of("Prefers tabs over spaces.", &cats).as_deref(),
        Some("Likes")
    );
    assert_eq!(
        category_of("Wants to learn Go.", &cats).as_deref(),
        Some("Plans")
    );
    assert_eq!(
        category_of("Usually codes at night.", &cats).as_deref(),
        Some("Habits")
    );
    assert_eq!(category_of("Lives in Lisbon.", &cats), None);
    assert_eq!(category_of("", &cats), None);
}
