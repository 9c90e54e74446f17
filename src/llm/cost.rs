//! A rough cost estimate for the run report, from a small price table of current hosted
//! models. It does not know about discounts (batch, prompt caching) or local models, and
//! it is never used to make decisions: an unknown model simply has no estimate.

use super::Usage;

/// Public list prices in USD per million tokens, (model id without a date suffix, input,
/// output), from the Anthropic and OpenAI pricing pages, late 2025.
const PRICES: &[(&str, f64, f64)] = &[
    ("claude-haiku-4-5", 1.0, 5.0),
    ("claude-sonnet-4-5", 3.0, 15.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("gpt-4o-mini", 0.15, 0.60),
    ("gpt-4o", 2.50, 10.0),
    ("gpt-4.1", 2.0, 8.0),
    ("gpt-4.1-mini", 0.40, 1.60),
    ("gpt-4.1-nano", 0.10, 0.40),
    ("gpt-5", 1.25, 10.0),
    ("gpt-5-mini", 0.25, 2.0),
    ("gpt-5-nano", 0.05, 0.40),
];

/// The estimated cost in USD of `usage` on `model`, or `None` for a model not in the table
/// (local models, new releases).
pub fn estimate_usd(model: &str, usage: Usage) -> Option<f64> {
    let &(_, input, output) = PRICES.iter().find(|(id, _, _)| names(model, id))?;
    // Token counts stay far below 2^52, where f64 would start to round them.
    let cost =
        (usage.input_tokens as f64 * input + usage.output_tokens as f64 * output) / 1_000_000.0;
    Some(cost)
}

/// Whether `model` is `id` itself or `id` with a date suffix (`-20251001`, `-2024-07-18`).
/// Other suffixes are other models: `gpt-4o-mini` is not `gpt-4o`.
fn names(model: &str, id: &str) -> bool {
    match model.strip_prefix(id) {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('-')
            .is_some_and(|date| date.starts_with(|c: char| c.is_ascii_digit())),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
        }
    }

    #[test]
    fn known_models_are_priced_per_million_tokens() {
        let cases: &[(&str, Option<f64>)] = &[
            ("claude-haiku-4-5", Some(1.0 + 5.0)),
            ("claude-haiku-4-5-20251001", Some(1.0 + 5.0)),
            ("claude-sonnet-4-5-20250929", Some(3.0 + 15.0)),
            ("claude-opus-4-1-20250805", Some(15.0 + 75.0)),
            ("gpt-4o", Some(2.5 + 10.0)),
            ("gpt-4o-2024-08-06", Some(2.5 + 10.0)),
            ("gpt-4o-mini", Some(0.15 + 0.60)),
            ("gpt-4o-mini-2024-07-18", Some(0.15 + 0.60)),
            ("gpt-4.1", Some(2.0 + 8.0)),
            ("gpt-4.1-mini-2025-04-14", Some(0.40 + 1.60)),
            ("gpt-5", Some(1.25 + 10.0)),
            ("gpt-5-mini", Some(0.25 + 2.0)),
            ("gpt-4o-audio-preview", None),
            ("claude-opus-4-5", None),
            ("llama3.1:8b", None),
            ("", None),
        ];
        for (model, want) in cases {
            let got = estimate_usd(model, usage(1_000_000, 1_000_000));
            match (got, want) {
                (Some(g), Some(w)) => assert!((g - w).abs() < 1e-9, "{model}: {g} != {w}"),
                _ => assert_eq!(got, *want, "{model}"),
            }
        }
    }

    #[test]
    fn cost_scales_with_tokens() {
        let cost = estimate_usd("claude-haiku-4-5", usage(2_000, 500)).expect("priced");
        assert!((cost - (2_000.0 * 1.0 + 500.0 * 5.0) / 1e6).abs() < 1e-12);
        assert_eq!(estimate_usd("gpt-5", Usage::default()), Some(0.0));
    }
}
