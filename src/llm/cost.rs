//! A rough cost estimate for the run report, from a small price table of current hosted
//! models, prompt caching included (Anthropic bills a cache write at 1.25 times the input
//! price and a read at a tenth of it; OpenAI a read at half of it, and writes as input). It
//! does not know about batch discounts or local models, and it is never used to make
//! decisions: an unknown model simply has no estimate.

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
    let &(id, input, output) = PRICES.iter().find(|(id, _, _)| names(model, id))?;
    let (write, read) = if id.starts_with("claude") {
        (1.25, 0.1)
    } else {
        (1.0, 0.5)
    };
    let fresh = usage
        .input_tokens
        .saturating_sub(usage.cache_write_tokens + usage.cache_read_tokens);
    // Token counts stay far below 2^52, where f64 would start to round them.
    let cost = (fresh as f64 * input
        + usage.cache_write_tokens as f64 * input * write
        + usage.cache_read_tokens as f64 * input * read
        + usage.output_tokens as f64 * output)
        / 1_000_000.0;
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
            ..Usage::default()
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

    #[test]
    fn cached_tokens_are_priced_as_the_providers_bill_them() {
        let cached = Usage {
            input_tokens: 10_000,
            output_tokens: 0,
            cache_write_tokens: 2_000,
            cache_read_tokens: 6_000,
        };
        let claude = estimate_usd("claude-haiku-4-5", cached).expect("priced");
        assert!((claude - (2_000.0 + 2_000.0 * 1.25 + 6_000.0 * 0.1) / 1e6).abs() < 1e-12);
        let openai = estimate_usd("gpt-4o-mini", cached).expect("priced");
        assert!((openai - (4_000.0 * 0.15 + 6_000.0 * 0.15 * 0.5) / 1e6).abs() < 1e-12);
    }
}
