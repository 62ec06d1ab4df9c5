//! The proleptic Gregorian calendar that `date` and jq's time functions share: day and
//! month names in the C locale, leap years, and day counts from 1970-01-01.

/// Day names, Sunday first, as the C locale spells them (`%A`; `%a` is the first three).
pub const DAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Month names, January first, as the C locale spells them (`%B`; `%b` is the first three).
pub const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

pub fn is_leap(y: i64) -> bool {
    y.rem_euclid(4) == 0 && (y.rem_euclid(100) != 0 || y.rem_euclid(400) == 0)
}

/// Days from 1970-01-01 to year `y`, month `m` (1-12), day `d`; `None` for years so far
/// out that the count would overflow.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> Option<i64> {
    if y.unsigned_abs() > 1 << 40 || m.unsigned_abs() > 1 << 40 || d.unsigned_abs() > 1 << 40 {
        return None;
    }
    // Count from March, so that a leap day ends the year; eras of 400 years repeat.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9).rem_euclid(12);
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// The year, month (1-12) and day (1-31) of a day count from 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z.saturating_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_roundtrip() {
        for d in [-800_000i64, -1, 0, 1, 59, 365, 20_000, 3_000_000] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m as i64, dd as i64), Some(d));
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert!(is_leap(2000) && is_leap(2024) && !is_leap(1900) && !is_leap(2023));
    }
}
