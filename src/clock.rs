//! Time as capn writes it: RFC 3339 UTC timestamps with milliseconds and `Z` (every `at` field
//! of entries and markers, format.md) and nanoseconds since the Unix epoch (stat stamps).

use std::time::SystemTime;

/// Formats a time as RFC 3339 UTC with milliseconds and `Z` (`2026-07-03T18:00:00.000Z`).
pub(crate) fn rfc3339(t: SystemTime) -> String {
    chrono::DateTime::<chrono::Utc>::from(t).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Parses an RFC 3339 timestamp; `None` when it is not one.
pub(crate) fn parse_rfc3339(s: &str) -> Option<SystemTime> {
    chrono::DateTime::parse_from_rfc3339(s)
        .ok()
        .map(|d| SystemTime::from(d.with_timezone(&chrono::Utc)))
}

/// Now, in nanoseconds since the Unix epoch (0 before it).
pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_entry_format_is_rfc3339_with_milliseconds() {
        let t = parse_rfc3339("2026-07-03T18:00:00.123Z").unwrap();
        assert_eq!(rfc3339(t), "2026-07-03T18:00:00.123Z");
    }
}
