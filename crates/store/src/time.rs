//! UTC timestamps without a date-time dependency.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// A broken-down UTC time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Utc {
    year: i64,
    month: u32,
    day: u32,
    hour: u64,
    minute: u64,
    second: u64,
    millis: u32,
}

/// Splits `time` into UTC calendar fields. Times before 1970 are clamped to the epoch.
fn utc(time: SystemTime) -> Utc {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO);
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Utc {
        year,
        month: u32::try_from(month).unwrap_or(1),
        day: u32::try_from(day).unwrap_or(1),
        hour: rem / 3_600,
        minute: rem % 3_600 / 60,
        second: rem % 60,
        millis: since.subsec_millis(),
    }
}

/// RFC 3339 with milliseconds, such as `2026-01-02T03:04:05.678Z`.
pub(crate) fn rfc3339_millis(time: SystemTime) -> String {
    let t = utc(time);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year, t.month, t.day, t.hour, t.minute, t.second, t.millis
    )
}

/// A compact form for file names, such as `20260102T030405Z`.
pub(crate) fn compact(time: SystemTime) -> String {
    let t = utc(time);
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        t.year, t.month, t.day, t.hour, t.minute, t.second
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: u64, millis: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(secs * 1000 + millis)
    }

    #[test]
    fn known_instants_format_exactly() {
        let cases = [
            (0, 0, "1970-01-01T00:00:00.000Z", "19700101T000000Z"),
            (
                951_782_400,
                5,
                "2000-02-29T00:00:00.005Z",
                "20000229T000000Z",
            ),
            (
                1_709_251_199,
                999,
                "2024-02-29T23:59:59.999Z",
                "20240229T235959Z",
            ),
            (
                1_767_323_045,
                678,
                "2026-01-02T03:04:05.678Z",
                "20260102T030405Z",
            ),
            (
                4_102_444_800,
                0,
                "2100-01-01T00:00:00.000Z",
                "21000101T000000Z",
            ),
        ];
        for (secs, millis, long, short) in cases {
            assert_eq!(rfc3339_millis(at(secs, millis)), long);
            assert_eq!(compact(at(secs, millis)), short);
        }
    }

    #[test]
    fn times_before_the_epoch_clamp() {
        let before = UNIX_EPOCH - Duration::from_secs(10);
        assert_eq!(rfc3339_millis(before), "1970-01-01T00:00:00.000Z");
    }
}
