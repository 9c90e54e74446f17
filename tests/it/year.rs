//! Issue 18: one simulated year of one person. 45 things about them (city, employer,
//! editor, diet, team, projects, ...) change 50 times over the year, and 10 plans bound to a
//! day (an exam, trips, a talk, deadlines) come and go; 260 chats (five a week) mention
//! them, some once, some again and again, in other words each time. memloop runs once a
//! week with the clock set to that night (`MEMLOOP_NOW`), against a mock playing a careful
//! model: it names in `replaces` only a fact it was shown, leaves out only a fact it was
//! shown (in any of its wordings), and gives a plan its last day.
//!
//! At the end of each month the eval compares memory.md with the person's true state then:
//! facts no longer true still in it, true facts missing, two bullets saying one thing,
//! memory.md's size, and the tokens and dollars of that month's nights, with the prompt
//! cache (`Mock::cache_prompts`) and without. The things about the person are split before
//! anything was tuned: those at even places of `LIFE` are the tuning part, those at odd
//! places the held-out part, reported apart.
//!
//! Everything here is written for memloop (the person, the chats). Run it with
//! `cargo test --test it year::eval -- --ignored --nocapture`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{Value, json};

use crate::support::mock::{Mock, Reply};
use crate::support::{TestEnv, bullets};

/// One value a thing about the person takes from a month on (0: January): two wordings of
/// the fact, and two things the person says that state it.
type Value_ = (u32, [&'static str; 2], [&'static str; 2]);

/// The things about the person and their values over the year.
const LIFE: &[(&str, &[Value_])] = &[
    (
        "city",
        &[
            (
                0,
                ["Lives in Munich.", "Is based in Munich."],
                ["I live in Munich, near the Isar.", "Munich is home for me."],
            ),
            (
                5,
                ["Lives in Berlin.", "Is based in Berlin."],
                [
                    "We finally moved to Berlin last month.",
                    "I live in Berlin now, in Kreuzberg.",
                ],
            ),
        ],
    ),
    (
        "employer",
        &[
            (
                0,
                ["Works at Stripe.", "Is employed by Stripe."],
                [
                    "I work at Stripe on the payments team.",
                    "At Stripe we ship every day.",
                ],
            ),
            (
                7,
                ["Works at Shopify.", "Is employed by Shopify."],
                [
                    "I started at Shopify this month.",
                    "At Shopify I work on checkout.",
                ],
            ),
        ],
    ),
    (
        "frontend",
        &[
            (
                0,
                ["Builds frontends with Vue.", "Uses Vue for frontend work."],
                [
                    "I build all my frontends with Vue.",
                    "Vue is what I use for the frontend.",
                ],
            ),
            (
                4,
                [
                    "Builds frontends with React.",
                    "Uses React for frontend work.",
                ],
                [
                    "I switched the frontends to React.",
                    "React is what I use for the frontend now.",
                ],
            ),
        ],
    ),
    (
        "indentation",
        &[
            (
                0,
                ["Indents code with tabs.", "Prefers tabs for indentation."],
                [
                    "I always indent with tabs.",
                    "Tabs for indentation, always.",
                ],
            ),
            (
                8,
                [
                    "Indents code with spaces.",
                    "Prefers spaces for indentation.",
                ],
                [
                    "I indent with spaces now, four of them.",
                    "Spaces for indentation from now on.",
                ],
            ),
        ],
    ),
    (
        "editor",
        &[
            (
                0,
                ["Uses VS Code as their editor.", "Edits code in VS Code."],
                ["I edit everything in VS Code.", "VS Code is my editor."],
            ),
            (
                3,
                ["Uses Neovim as their editor.", "Edits code in Neovim."],
                [
                    "I moved to Neovim as my editor.",
                    "Neovim is my editor now.",
                ],
            ),
        ],
    ),
    (
        "postgres",
        &[
            (
                0,
                [
                    "Runs Postgres 14 in production.",
                    "Production database is Postgres 14.",
                ],
                [
                    "Production runs Postgres 14.",
                    "We are on Postgres 14 in production.",
                ],
            ),
            (
                6,
                [
                    "Runs Postgres 17 in production.",
                    "Production database is Postgres 17.",
                ],
                [
                    "We upgraded production to Postgres 17.",
                    "Production is on Postgres 17 now.",
                ],
            ),
        ],
    ),
    (
        "diet",
        &[
            (
                0,
                ["Is vegetarian.", "Eats a vegetarian diet."],
                ["I am vegetarian.", "I eat vegetarian, no meat."],
            ),
            (
                9,
                ["Is pescatarian.", "Eats fish but no meat."],
                [
                    "I eat fish again now, so pescatarian.",
                    "Pescatarian these days: fish but no meat.",
                ],
            ),
        ],
    ),
    (
        "team",
        &[
            (
                0,
                ["Leads a team of 4.", "Manages a team of four engineers."],
                [
                    "I lead a team of four engineers.",
                    "My team is four people.",
                ],
            ),
            (
                10,
                ["Leads a team of 9.", "Manages a team of nine engineers."],
                [
                    "After the reorg I lead nine engineers.",
                    "My team is nine people now.",
                ],
            ),
        ],
    ),
    (
        "answer-language",
        &[
            (
                0,
                ["Wants answers in German.", "Prefers replies in German."],
                ["Please answer me in German.", "I want answers in German."],
            ),
            (
                2,
                ["Wants answers in English.", "Prefers replies in English."],
                [
                    "Answer me in English from now on.",
                    "I want answers in English now.",
                ],
            ),
        ],
    ),
    (
        "role",
        &[
            (
                0,
                ["Works as a data analyst.", "Is a data analyst."],
                ["I work as a data analyst.", "My job is data analyst."],
            ),
            (
                6,
                [
                    "Works as a senior data analyst.",
                    "Is a senior data analyst.",
                ],
                [
                    "I was promoted to senior data analyst.",
                    "I am a senior data analyst now.",
                ],
            ),
        ],
    ),
    (
        "shell",
        &[
            (
                0,
                ["Uses bash as their shell.", "Works in the bash shell."],
                ["My shell is bash.", "I use bash every day."],
            ),
            (
                5,
                ["Uses zsh as their shell.", "Works in the zsh shell."],
                ["I moved my shell to zsh.", "zsh is my shell now."],
            ),
            (
                10,
                ["Uses fish as their shell.", "Works in the fish shell."],
                ["I switched my shell to fish.", "fish is my shell now."],
            ),
        ],
    ),
    (
        "os",
        &[
            (
                0,
                [
                    "Works on Windows.",
                    "Uses Windows as their operating system.",
                ],
                ["I work on Windows.", "Windows is my operating system."],
            ),
            (
                1,
                ["Works on macOS.", "Uses macOS as their operating system."],
                ["I work on macOS now.", "macOS is my operating system now."],
            ),
        ],
    ),
    (
        "pet",
        &[(
            4,
            ["Has a dog named Pixel.", "Owns a dog called Pixel."],
            [
                "We adopted a dog named Pixel.",
                "My dog Pixel needs a walk.",
            ],
        )],
    ),
    (
        "running",
        &[
            (
                0,
                ["Is training for a 10k run.", "Trains for a 10k race."],
                [
                    "I am training for a 10k run.",
                    "My 10k training is going well.",
                ],
            ),
            (
                5,
                [
                    "Is training for a half marathon.",
                    "Trains for a half marathon.",
                ],
                [
                    "I am training for a half marathon now.",
                    "Half marathon training today.",
                ],
            ),
            (
                9,
                [
                    "Is training for a full marathon.",
                    "Trains for a full marathon.",
                ],
                [
                    "I am training for a full marathon.",
                    "Full marathon training today.",
                ],
            ),
        ],
    ),
    (
        "project",
        &[
            (
                0,
                [
                    "Works on the Lanternfish project.",
                    "Main project is Lanternfish.",
                ],
                [
                    "I work on the Lanternfish project.",
                    "Lanternfish is my main project.",
                ],
            ),
            (
                3,
                ["Works on the Heron project.", "Main project is Heron."],
                [
                    "I moved to the Heron project.",
                    "Heron is my main project now.",
                ],
            ),
            (
                8,
                [
                    "Works on the Tidepool project.",
                    "Main project is Tidepool.",
                ],
                [
                    "I started on the Tidepool project.",
                    "Tidepool is my main project now.",
                ],
            ),
        ],
    ),
    (
        "learning",
        &[
            (
                0,
                ["Is learning Rust.", "Studies the Rust language."],
                [
                    "I am learning Rust in the evenings.",
                    "Rust is what I am learning.",
                ],
            ),
            (
                6,
                ["Is learning Go.", "Studies the Go language."],
                ["I am learning Go now.", "Go is what I am learning now."],
            ),
        ],
    ),
    (
        "drink",
        &[
            (
                0,
                [
                    "Drinks coffee every morning.",
                    "Starts each day with coffee.",
                ],
                [
                    "I drink coffee every morning.",
                    "Coffee every morning for me.",
                ],
            ),
            (
                7,
                [
                    "Drinks tea instead of coffee.",
                    "Switched from coffee to tea.",
                ],
                [
                    "I drink tea instead of coffee now.",
                    "Tea instead of coffee now.",
                ],
            ),
        ],
    ),
    (
        "commute",
        &[
            (
                0,
                ["Commutes by bike.", "Rides a bike to work."],
                ["I commute by bike.", "I ride my bike to work."],
            ),
            (
                11,
                ["Commutes by train.", "Takes the train to work."],
                ["I commute by train now.", "I take the train to work now."],
            ),
        ],
    ),
    (
        "meetings",
        &[
            (
                0,
                [
                    "Prefers meetings in the morning.",
                    "Likes morning meetings.",
                ],
                [
                    "I prefer meetings in the morning.",
                    "Morning meetings suit me best.",
                ],
            ),
            (
                6,
                [
                    "Prefers meetings in the afternoon.",
                    "Likes afternoon meetings.",
                ],
                [
                    "I prefer meetings in the afternoon now.",
                    "Afternoon meetings suit me best now.",
                ],
            ),
        ],
    ),
    (
        "child",
        &[
            (
                0,
                [
                    "Is expecting a first child.",
                    "Is about to become a parent.",
                ],
                [
                    "We are expecting our first child.",
                    "Our first child is due soon.",
                ],
            ),
            (
                3,
                ["Has a baby daughter.", "Is the parent of a baby daughter."],
                [
                    "Our daughter was born last week.",
                    "My baby daughter kept us up.",
                ],
            ),
        ],
    ),
    (
        "hosting",
        &[
            (
                0,
                ["Hosts apps on Heroku.", "Deploys to Heroku."],
                ["I host my apps on Heroku.", "Heroku hosts my apps."],
            ),
            (
                4,
                ["Hosts apps on Fly.io.", "Deploys to Fly.io."],
                ["I host my apps on Fly.io now.", "Fly.io hosts my apps now."],
            ),
            (
                9,
                ["Hosts apps on Hetzner.", "Deploys to Hetzner."],
                [
                    "I host my apps on Hetzner now.",
                    "Hetzner hosts my apps now.",
                ],
            ),
        ],
    ),
    (
        "tests",
        &[
            (
                0,
                ["Writes tests with Jest.", "Uses Jest for tests."],
                ["I write my tests with Jest.", "Jest runs my tests."],
            ),
            (
                5,
                ["Writes tests with Vitest.", "Uses Vitest for tests."],
                [
                    "I write my tests with Vitest now.",
                    "Vitest runs my tests now.",
                ],
            ),
        ],
    ),
    (
        "ci",
        &[
            (
                0,
                ["Runs CI on Jenkins.", "Uses Jenkins for CI."],
                ["Our CI runs on Jenkins.", "Jenkins is our CI."],
            ),
            (
                2,
                ["Runs CI on GitHub Actions.", "Uses GitHub Actions for CI."],
                [
                    "Our CI runs on GitHub Actions now.",
                    "GitHub Actions is our CI now.",
                ],
            ),
        ],
    ),
    (
        "phone",
        &[
            (
                0,
                ["Uses an Android phone.", "Owns an Android phone."],
                ["My phone is an Android.", "I use an Android phone."],
            ),
            (
                8,
                ["Uses an iPhone.", "Owns an iPhone."],
                ["My phone is an iPhone now.", "I use an iPhone now."],
            ),
        ],
    ),
    (
        "reading",
        &[(
            0,
            ["Reads science fiction.", "Enjoys science fiction books."],
            [
                "I read science fiction before bed.",
                "Science fiction is what I read.",
            ],
        )],
    ),
    (
        "instrument",
        &[
            (
                0,
                ["Is learning the piano.", "Takes piano lessons."],
                [
                    "I am learning the piano.",
                    "My piano lessons are on Fridays.",
                ],
            ),
            (
                7,
                ["Is learning the guitar.", "Takes guitar lessons."],
                [
                    "I am learning the guitar now.",
                    "My guitar lessons are on Fridays now.",
                ],
            ),
        ],
    ),
    (
        "answer-length",
        &[
            (
                0,
                ["Wants detailed answers.", "Prefers long, detailed answers."],
                ["I want detailed answers.", "Give me detailed answers."],
            ),
            (
                3,
                ["Wants concise answers.", "Prefers short, concise answers."],
                [
                    "I want concise answers now.",
                    "Give me concise answers from now on.",
                ],
            ),
        ],
    ),
    (
        "notes",
        &[(
            0,
            ["Keeps notes in Obsidian.", "Uses Obsidian for notes."],
            ["I keep my notes in Obsidian.", "Obsidian holds my notes."],
        )],
    ),
    (
        "keyboard",
        &[(
            0,
            ["Types on a split keyboard.", "Uses a split keyboard."],
            [
                "I type on a split keyboard.",
                "My split keyboard helps my wrists.",
            ],
        )],
    ),
    (
        "car",
        &[
            (
                0,
                ["Owns a car.", "Has a car."],
                ["I drive my car on weekends.", "My car needs a service."],
            ),
            (
                6,
                ["Does not own a car.", "Has no car."],
                [
                    "I sold my car, I do not own a car now.",
                    "I have no car now.",
                ],
            ),
        ],
    ),
    (
        "language-study",
        &[
            (
                2,
                ["Is learning Spanish.", "Studies Spanish."],
                ["I am learning Spanish.", "Spanish lessons twice a week."],
            ),
            (
                9,
                ["Is learning Japanese.", "Studies Japanese."],
                [
                    "I am learning Japanese now.",
                    "Japanese lessons twice a week now.",
                ],
            ),
        ],
    ),
    (
        "manager",
        &[
            (
                0,
                ["Reports to Anna.", "Has Anna as their manager."],
                ["My manager is Anna.", "I report to Anna."],
            ),
            (
                5,
                ["Reports to Priya.", "Has Priya as their manager."],
                ["My manager is Priya now.", "I report to Priya now."],
            ),
        ],
    ),
    (
        "gym",
        &[
            (
                0,
                [
                    "Goes to the gym in the morning.",
                    "Trains at the gym in the morning.",
                ],
                [
                    "I go to the gym in the morning.",
                    "Gym in the morning for me.",
                ],
            ),
            (
                4,
                [
                    "Goes to the gym in the evening.",
                    "Trains at the gym in the evening.",
                ],
                [
                    "I go to the gym in the evening now.",
                    "Gym in the evening for me now.",
                ],
            ),
        ],
    ),
    (
        "monitors",
        &[
            (
                0,
                ["Works on one monitor.", "Uses a single monitor."],
                [
                    "I work on one monitor.",
                    "A single monitor is enough for me.",
                ],
            ),
            (
                10,
                ["Works on two monitors.", "Uses two monitors."],
                [
                    "I work on two monitors now.",
                    "Two monitors now on my desk.",
                ],
            ),
        ],
    ),
    (
        "office",
        &[
            (
                0,
                [
                    "Works from the office three days a week.",
                    "Goes to the office three days a week.",
                ],
                [
                    "I work from the office three days a week.",
                    "Three office days a week for me.",
                ],
            ),
            (
                6,
                ["Works fully remote.", "Works remotely full time."],
                [
                    "I work fully remote now.",
                    "Fully remote now, no office days.",
                ],
            ),
        ],
    ),
    (
        "book",
        &[
            (
                3,
                [
                    "Is writing a book about data pipelines.",
                    "Is working on a book about data pipelines.",
                ],
                [
                    "I am writing a book about data pipelines.",
                    "My book about data pipelines is coming along.",
                ],
            ),
            (
                11,
                [
                    "Has published a book about data pipelines.",
                    "Wrote a published book about data pipelines.",
                ],
                [
                    "My book about data pipelines was published.",
                    "The data pipelines book is published.",
                ],
            ),
        ],
    ),
    (
        "cloud",
        &[
            (
                0,
                ["Uses AWS at work.", "Works with AWS."],
                ["We use AWS at work.", "Work runs on AWS."],
            ),
            (
                7,
                ["Uses GCP at work.", "Works with GCP."],
                ["We use GCP at work now.", "Work runs on GCP now."],
            ),
        ],
    ),
    (
        "database",
        &[(
            0,
            [
                "Prefers Postgres over MySQL.",
                "Chooses Postgres over MySQL.",
            ],
            [
                "I prefer Postgres over MySQL.",
                "Postgres over MySQL, always.",
            ],
        )],
    ),
    (
        "hobby",
        &[
            (
                0,
                ["Goes climbing on weekends.", "Climbs on weekends."],
                ["I go climbing on weekends.", "Climbing on weekends for me."],
            ),
            (
                3,
                ["Goes bouldering on weekends.", "Boulders on weekends."],
                [
                    "I go bouldering on weekends now.",
                    "Bouldering on weekends now.",
                ],
            ),
            (
                8,
                ["Goes sailing on weekends.", "Sails on weekends."],
                ["I go sailing on weekends now.", "Sailing on weekends now."],
            ),
        ],
    ),
    (
        "desk",
        &[(
            5,
            ["Works at a standing desk.", "Uses a standing desk."],
            ["I work at a standing desk.", "My standing desk is great."],
        )],
    ),
    (
        "one-on-one",
        &[
            (
                0,
                [
                    "Has weekly one-on-ones on Tuesday.",
                    "Holds one-on-ones every Tuesday.",
                ],
                [
                    "My weekly one-on-ones are on Tuesday.",
                    "Tuesday is one-on-one day.",
                ],
            ),
            (
                9,
                [
                    "Has weekly one-on-ones on Thursday.",
                    "Holds one-on-ones every Thursday.",
                ],
                [
                    "My weekly one-on-ones are on Thursday now.",
                    "Thursday is one-on-one day now.",
                ],
            ),
        ],
    ),
    (
        "favourite-language",
        &[
            (
                0,
                ["Favourite language is Python.", "Likes Python best."],
                [
                    "My favourite language is Python.",
                    "Python is my favourite language.",
                ],
            ),
            (
                10,
                ["Favourite language is Rust.", "Likes Rust best."],
                [
                    "My favourite language is Rust now.",
                    "Rust is my favourite language now.",
                ],
            ),
        ],
    ),
    (
        "alarm",
        &[
            (
                0,
                ["Wakes up at 6 am.", "Gets up at six in the morning."],
                ["I wake up at 6 am.", "I get up at six in the morning."],
            ),
            (
                4,
                ["Wakes up at 7 am.", "Gets up at seven in the morning."],
                [
                    "I wake up at 7 am now.",
                    "I get up at seven in the morning now.",
                ],
            ),
        ],
    ),
    (
        "sleep",
        &[
            (
                0,
                ["Tracks sleep with a ring.", "Uses a sleep ring."],
                [
                    "I track my sleep with a ring.",
                    "My sleep ring says I slept well.",
                ],
            ),
            (
                8,
                ["Tracks sleep with a watch.", "Uses a sleep watch."],
                [
                    "I track my sleep with a watch now.",
                    "My sleep watch says I slept well.",
                ],
            ),
        ],
    ),
    (
        "podcast",
        &[(
            1,
            [
                "Hosts a podcast about databases.",
                "Runs a podcast about databases.",
            ],
            [
                "I host a podcast about databases.",
                "My podcast about databases has a new episode.",
            ],
        )],
    ),
];

/// Plans bound to a day: the month they are first said, the fact, what the person says,
/// and the last day they hold.
const PLANS: &[(u32, &str, &str, &str)] = &[
    (
        1,
        "Is preparing for the AWS exam on 2026-03-03.",
        "I am preparing for my AWS exam on March 3.",
        "2026-03-03",
    ),
    (
        2,
        "Is travelling to Japan from 2026-04-10 to 2026-04-20.",
        "I am travelling to Japan from April 10 to April 20.",
        "2026-04-20",
    ),
    (
        3,
        "Is giving a conference talk on 2026-06-12.",
        "I am giving a conference talk on June 12.",
        "2026-06-12",
    ),
    (
        4,
        "Is on parental leave until 2026-05-31.",
        "I am on parental leave until the end of May.",
        "2026-05-31",
    ),
    (
        5,
        "Has a grant deadline on 2026-08-15.",
        "My grant deadline is August 15.",
        "2026-08-15",
    ),
    (
        5,
        "Is on vacation in Crete from 2026-07-01 to 2026-07-14.",
        "I am on vacation in Crete from July 1 to July 14.",
        "2026-07-14",
    ),
    (
        7,
        "Is running a marathon race on 2026-10-18.",
        "I am running a marathon race on October 18.",
        "2026-10-18",
    ),
    (
        8,
        "Is joining a hackathon on 2026-09-06.",
        "I am joining a hackathon on September 6.",
        "2026-09-06",
    ),
    (
        9,
        "Is moving the team to a new office on 2026-11-02.",
        "We are moving the team to a new office on November 2.",
        "2026-11-02",
    ),
    (
        10,
        "Is visiting their parents from 2026-12-20 to 2027-01-03.",
        "I am visiting my parents from December 20 to January 3.",
        "2027-01-03",
    ),
];

const YEAR: i32 = 2026;

/// What the person says, and what a careful model makes of it.
#[derive(Debug, Clone)]
struct Said {
    /// The thing it is about (a `LIFE` name, or the plan's fact).
    thing: String,
    /// All wordings of the value it states.
    wordings: Vec<String>,
    /// All wordings of the thing's other values: what it would replace, if shown.
    others: Vec<String>,
    valid_until: Option<String>,
}

/// A small deterministic generator, so the year is the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from((self.0 >> 33) % n as u64).unwrap_or(0)
    }
}

/// The value of `thing` in `month`, as its index in `LIFE`'s list, when it has one yet.
fn value_in(values: &[Value_], month: u32) -> Option<usize> {
    values.iter().rposition(|(from, _, _)| *from <= month)
}

/// The chats of the year, by day: each a few sentences the person says.
fn chats() -> Vec<(chrono::NaiveDate, Vec<String>)> {
    let mut rng = Lcg(2026);
    let mut out = Vec::new();
    let start = chrono::NaiveDate::from_ymd_opt(YEAR, 1, 5).expect("a day");
    for week in 0..52 {
        for weekday in 0..5 {
            let day = start + chrono::Days::new(week * 7 + weekday);
            let month = chrono::Datelike::month0(&day);
            let mut said = Vec::new();
            // A change is said in the first chats of its month, twice.
            for (_, values) in LIFE {
                for (i, (from, _, sentences)) in values.iter().enumerate() {
                    let first_days = chrono::Datelike::day(&day) <= 10;
                    if *from == month && (i > 0 || *from > 0) && first_days && rng.next(4) == 0 {
                        said.push(sentences[0].to_owned());
                    }
                }
            }
            for (from, _, sentence, _) in PLANS {
                if *from == month && chrono::Datelike::day(&day) <= 7 && rng.next(3) == 0 {
                    said.push((*sentence).to_owned());
                }
            }
            // And a couple of things as they stand, in other words.
            for _ in 0..2 {
                let (_, values) = LIFE[rng.next(LIFE.len())];
                if let Some(v) = value_in(values, month) {
                    said.push(values[v].2[rng.next(2)].to_owned());
                }
            }
            out.push((day, said));
        }
    }
    out
}

/// Every sentence the person may say, and what it states.
fn said_index() -> HashMap<String, Said> {
    let mut index = HashMap::new();
    for (thing, values) in LIFE {
        for (i, (_, wordings, sentences)) in values.iter().enumerate() {
            let others = values
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .flat_map(|(_, (_, w, _))| w.iter().map(|s| (*s).to_owned()))
                .collect::<Vec<_>>();
            for sentence in sentences {
                index.insert(
                    (*sentence).to_owned(),
                    Said {
                        thing: (*thing).to_owned(),
                        wordings: wordings.iter().map(|s| (*s).to_owned()).collect(),
                        others: others.clone(),
                        valid_until: None,
                    },
                );
            }
        }
    }
    for (_, fact, sentence, until) in PLANS {
        index.insert(
            (*sentence).to_owned(),
            Said {
                thing: (*fact).to_owned(),
                wordings: vec![(*fact).to_owned()],
                others: Vec::new(),
                valid_until: Some((*until).to_owned()),
            },
        );
    }
    index
}

/// The careful model: for each sentence of the transcript it knows, the fact it states,
/// unless one of its wordings was shown as known; `replaces` names a shown wording of the
/// thing's other values.
fn careful_answer(
    request: &crate::support::mock::Recorded,
    index: &HashMap<String, Said>,
    pick: usize,
) -> Value {
    let text = request.user_text();
    let (head, transcript) = text.split_once("<transcript").unwrap_or(("", &text));
    let shown: Vec<&str> = head.lines().filter_map(|l| l.strip_prefix("- ")).collect();
    let mut facts = Vec::new();
    for (sentence, said) in index {
        if !transcript.contains(sentence.as_str()) {
            continue;
        }
        if said.wordings.iter().any(|w| shown.contains(&w.as_str())) {
            continue;
        }
        let wording = &said.wordings[pick % said.wordings.len()];
        let mut fact = json!({"category": "Identity", "text": wording, "scope": "global",
                              "evidence": sentence});
        if let Some(old) = said.others.iter().find(|o| shown.contains(&o.as_str())) {
            fact["replaces"] = json!(old);
        }
        if let Some(day) = &said.valid_until {
            fact["valid_until"] = json!(day);
        }
        facts.push(fact);
    }
    json!({ "facts": facts })
}

/// The careful model linking the facts learned the same night: a later fact says the same
/// as an earlier one of the same value, or updates an earlier one of an older value.
fn careful_links(request: &crate::support::mock::Recorded, index: &HashMap<String, Said>) -> Value {
    let facts = crate::support::mock::reconciled_items(&request.json());
    let said = |fact: &str| {
        index
            .values()
            .find(|s| s.wordings.iter().any(|w| w == fact))
    };
    let value = |fact: &str| -> Option<(String, usize)> {
        let s = said(fact)?;
        let (_, values) = LIFE.iter().find(|(t, _)| *t == s.thing)?;
        let v = values.iter().position(|(_, w, _)| w.contains(&fact))?;
        Some((s.thing.clone(), v))
    };
    let mut links = Vec::new();
    for (i, fact) in facts.iter().enumerate() {
        let mine = value(fact);
        let mut link = json!({"n": i + 1, "same_as": null, "replaces": null});
        for (j, earlier) in facts[..i].iter().enumerate() {
            match (&mine, value(earlier)) {
                (Some((t, v)), Some((u, w))) if *t == u && *v == w => {
                    link["same_as"] = json!(j + 1)
                }
                (Some((t, v)), Some((u, w))) if *t == u && *v > w => {
                    link["replaces"] = json!(j + 1)
                }
                _ => {}
            }
        }
        links.push(link);
    }
    json!({ "links": links })
}

/// The person's true state on `day`: each thing's wordings now.
fn truth(
    day: chrono::NaiveDate,
    said_so_far: &std::collections::HashSet<String>,
) -> Vec<(String, Vec<String>)> {
    let month = chrono::Datelike::month0(&day);
    let mut out = Vec::new();
    for (thing, values) in LIFE {
        if let Some(v) = value_in(values, month)
            && values[v].1.iter().any(|w| said_so_far.contains(*w))
        {
            out.push((
                (*thing).to_owned(),
                values[v].1.iter().map(|s| (*s).to_owned()).collect(),
            ));
        }
    }
    for (_, fact, _, until) in PLANS {
        let open = day.format("%Y-%m-%d").to_string().as_str() <= *until;
        if open && said_so_far.contains(*fact) {
            out.push(((*fact).to_owned(), vec![(*fact).to_owned()]));
        }
    }
    out
}

/// Whether a thing is in the held-out part (odd places of `LIFE`, every other plan).
fn held(thing: &str) -> bool {
    LIFE.iter()
        .position(|(t, _)| *t == thing)
        .or_else(|| PLANS.iter().position(|(_, f, _, _)| *f == thing))
        .is_some_and(|i| i % 2 == 1)
}

#[derive(Debug, Default, Clone, Copy)]
struct Month {
    stale: [usize; 2],
    missing: [usize; 2],
    true_facts: [usize; 2],
    duplicates: usize,
    bullets: usize,
    bytes: usize,
    input: u64,
    cache_write: u64,
    cache_read: u64,
    output: u64,
    cost: f64,
    nights: u32,
}

/// Plays the year with `model`; `cache` turns the mock's prompt cache on.
fn play(model: &str, cache: bool) -> Vec<Month> {
    let env = TestEnv::new();
    env.create_vault("life");
    let mock = Mock::start();
    if cache {
        mock.cache_prompts();
    }
    let index = said_index();
    let served = index.clone();
    let counter = std::sync::atomic::AtomicUsize::new(0);
    mock.answer_with(move |request| {
        if request.is_judge() {
            return None;
        }
        if request.is_reconcile() {
            return Some(Reply::Answer(careful_links(request, &served)));
        }
        let pick = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Some(Reply::Answer(careful_answer(request, &served, pick)))
    });
    // Any wording of anything said so far, for the truth.
    let mut said_so_far = std::collections::HashSet::new();
    let mut months = vec![Month::default(); 12];
    let chats = chats();
    let mut n = 0;
    for week in chats.chunks(5) {
        for (day, sentences) in week {
            n += 1;
            let name = format!("{}-1000-c{n:03}.md", day.format("%Y-%m-%d"));
            let body = sentences.join(" ");
            env.add_transcript(
                "life",
                &name,
                &crate::support::transcript(
                    &day.format("%Y-%m-%d").to_string(),
                    "10:00",
                    "Chat",
                    &body,
                ),
            );
            for s in sentences {
                if let Some(said) = index.get(s) {
                    said_so_far.extend(said.wordings.iter().cloned());
                }
            }
        }
        let night = week.last().expect("a week").0 + chrono::Days::new(1);
        let report = env
            .cmd()
            .envs(
                crate::support::anthropic(&mock)
                    .iter()
                    .map(|(k, v)| (*k, v)),
            )
            .env("MEMLOOP_MODEL", model)
            .env(
                "MEMLOOP_NOW",
                format!("{}T22:00:00+00:00", night.format("%Y-%m-%d")),
            )
            .args(["extract", "--json"])
            .assert()
            .code(0);
        let report = crate::support::report(report.get_output());
        let m = &mut months[chrono::Datelike::month0(&night).min(11) as usize];
        let tokens = &report["tokens"];
        let count = |k: &str| tokens[k].as_u64().unwrap_or_default();
        m.input += count("input");
        m.output += count("output");
        m.cache_write += count("cache_write");
        m.cache_read += count("cache_read");
        m.cost += report["cost_usd"].as_f64().unwrap_or_default();
        m.nights += 1;
        // The end of a month: memory.md against the truth.
        let next = night + chrono::Days::new(7);
        if chrono::Datelike::month0(&next) != chrono::Datelike::month0(&night)
            || next.year_ce().1 != night.year_ce().1
        {
            let memory = env.memory();
            let shown = bullets(&memory);
            let truth = truth(night, &said_so_far);
            m.bullets = shown.len();
            m.bytes = memory.len();
            for (thing, wordings) in &truth {
                let part = usize::from(held(thing));
                m.true_facts[part] += 1;
                if !wordings.iter().any(|w| shown.contains(w)) {
                    m.missing[part] += 1;
                }
            }
            // Bullets by the value they state: two for one value say one thing twice.
            let mut by_value: BTreeMap<String, usize> = BTreeMap::new();
            for bullet in &shown {
                let now_true = truth.iter().any(|(_, w)| w.contains(bullet));
                let said = index.values().find(|s| s.wordings.contains(bullet));
                let thing = said.map_or_else(|| bullet.clone(), |s| s.thing.clone());
                if !now_true {
                    m.stale[usize::from(held(&thing))] += 1;
                }
                let value = said.map_or_else(|| bullet.clone(), |s| s.wordings[0].clone());
                *by_value.entry(value).or_default() += 1;
            }
            m.duplicates = by_value.values().map(|n| n.saturating_sub(1)).sum();
            let by_thing = by_value;
            if std::env::var_os("MEMLOOP_YEAR_SHOW").is_some() {
                let dups: Vec<&String> = by_thing
                    .iter()
                    .filter(|(_, n)| **n > 1)
                    .map(|(t, _)| t)
                    .collect();
                eprintln!(
                    "month {}: duplicated {dups:?}",
                    chrono::Datelike::month(&night)
                );
                let stale: Vec<&String> = shown
                    .iter()
                    .filter(|b| !truth.iter().any(|(_, w)| w.contains(*b)))
                    .collect();
                eprintln!("  stale {stale:?}");
            }
        }
    }
    months
}

use chrono::Datelike as _;

#[test]
#[ignore = "the simulated year: run with --ignored --nocapture for its figures"]
fn eval() {
    for (model, cache) in [
        ("claude-haiku-4-5", true),
        ("claude-sonnet-4-5", true),
        ("claude-sonnet-4-5", false),
    ] {
        let months = play(model, cache);
        println!(
            "\n== a simulated year, {model}, prompt cache {}: per month (tune | held)",
            if cache { "on" } else { "off" }
        );
        println!(
            "  month  stale      missing / true    dup  bullets  bytes   nights  input(write/read)          output  $"
        );
        for (i, m) in months.iter().enumerate() {
            println!(
                "  {:>5}  {:>3} | {:<3}  {:>2} | {:<2} / {:>2} | {:<2}  {:>3}  {:>7}  {:>5}  {:>6}  {:>7} ({:>6}/{:>7})  {:>6}  {:.4}",
                i + 1,
                m.stale[0],
                m.stale[1],
                m.missing[0],
                m.missing[1],
                m.true_facts[0],
                m.true_facts[1],
                m.duplicates,
                m.bullets,
                m.bytes,
                m.nights,
                m.input,
                m.cache_write,
                m.cache_read,
                m.output,
                m.cost
            );
        }
        let total: f64 = months.iter().map(|m| m.cost).sum();
        let nights: u32 = months.iter().map(|m| m.nights).sum();
        println!(
            "  the year: ${total:.4} over {nights} nights (${:.5} a night, ${:.5} a transcript)",
            total / f64::from(nights),
            total / 260.0
        );
    }
}

#[test]
fn the_year_is_what_the_eval_says_it_is() {
    let chats = chats();
    assert_eq!(chats.len(), 260);
    let changes: usize = LIFE
        .iter()
        .map(|(_, v)| v.len().saturating_sub(1))
        .sum::<usize>()
        + LIFE.iter().filter(|(_, v)| v[0].0 > 0).count();
    assert!(
        changes + PLANS.len() >= 50,
        "{changes} changes and {} plans",
        PLANS.len()
    );
    let index = said_index();
    let sentences: usize = chats.iter().map(|(_, s)| s.len()).sum();
    assert!(
        chats
            .iter()
            .all(|(_, s)| s.iter().all(|s| index.contains_key(s)))
    );
    assert!(sentences > 500, "{sentences}");
}
