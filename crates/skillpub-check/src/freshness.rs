//! How long a cache may hand out an answer without asking the origin (its freshness lifetime,
//! RFC 9111 section 4.2.1), read from `Cache-Control` and `Expires`, and the window in which a
//! cache can pair an index with other bytes than its digests name: the check
//! `cache.mismatch-window`.

use std::time::{SystemTime, UNIX_EPOCH};

use http::HeaderMap;
use http::header::{CACHE_CONTROL, DATE, EXPIRES};

/// Seconds since the Unix epoch, the `now` of [`lifetime`] (0 for a clock before it).
pub(crate) fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The longest, in seconds, that some cache may hand out an answer with these headers without
/// revalidating it: 0 with `no-store` or `no-cache`; else the larger of `s-maxage` (which a
/// shared cache reads) and `max-age` (which a browser reads, and a shared cache without
/// `s-maxage`); else `Expires` minus `Date` (minus `now`, seconds since the Unix epoch, without
/// a `Date`); else 0. A cache may also guess a lifetime from `Last-Modified` (a heuristic);
/// that is not counted, since nothing in the answer allows it.
pub(crate) fn lifetime(headers: &HeaderMap, now: u64) -> u64 {
    let mut max_age = None;
    let mut s_maxage = None;
    for directive in headers
        .get_all(CACHE_CONTROL)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
    {
        let (name, argument) = match directive.split_once('=') {
            Some((name, argument)) => (name.trim(), Some(argument.trim().trim_matches('"'))),
            None => (directive.trim(), None),
        };
        let seconds = || {
            argument
                .and_then(|text| text.parse::<u64>().ok())
                .unwrap_or(0)
        };
        match name.to_ascii_lowercase().as_str() {
            "no-store" => return 0,
            "no-cache" if argument.is_none() => return 0,
            "max-age" => max_age = Some(seconds()),
            "s-maxage" => s_maxage = Some(seconds()),
            _ => {}
        }
    }
    if max_age.is_some() || s_maxage.is_some() {
        return max_age.unwrap_or(0).max(s_maxage.unwrap_or(0));
    }
    let date = |name| headers.get(name)?.to_str().ok().and_then(http_date);
    match headers.get(EXPIRES) {
        // An `Expires` that is not a date (such as `0`) is in the past (RFC 9111 5.3).
        Some(_) => date(EXPIRES)
            .unwrap_or(0)
            .saturating_sub(date(DATE).unwrap_or(now)),
        None => 0,
    }
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110 5.6.7) as seconds since the Unix
/// epoch; `None` for any other text (the obsolete RFC 850 and asctime forms included).
fn http_date(text: &str) -> Option<u64> {
    let mut parts = text.trim().split(' ');
    let (_weekday, day, month, year, time, zone) = (
        parts.next()?.strip_suffix(',')?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
        parts.next()?,
    );
    if zone != "GMT" || parts.next().is_some() || day.len() != 2 || year.len() != 4 {
        return None;
    }
    let month = 1 + [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    .iter()
    .position(|name| *name == month)? as u64;
    let number = |text: &str| {
        (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| text.parse::<u64>().ok())
            .flatten()
    };
    let (day, year) = (number(day)?, number(year)?);
    let mut clock = time.split(':').map(number);
    let (hour, minute, second) = (clock.next()??, clock.next()??, clock.next()??);
    if clock.next().is_some()
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
        || year < 1970
    {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar, from 1970 on (Howard
/// Hinnant's `days_from_civil`).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// What a cache may do with one artifact of the index: whether its `url` names its digest
/// (then its bytes cannot change under that URL), and how long it may be cached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exposure {
    /// Whether the path of the artifact's URL holds the 64 hex digits of its digest.
    pub(crate) addressed: bool,
    /// Its [`lifetime`], in seconds.
    pub(crate) lifetime: u64,
}

/// How long after a deploy a cache can pair the index with other bytes than its digests name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Window {
    /// Every artifact URL names its digest: an index, however old, is served the bytes it
    /// names or a `404`, never other bytes.
    Addressed(usize),
    /// Neither the index nor the artifacts whose URL does not name their digest may be
    /// cached.
    NothingCached,
    /// For up to `seconds`: the index may be cached for `index` seconds and `artifacts`
    /// artifacts whose URL does not name their digest for up to `longest`.
    Open {
        seconds: u64,
        index: u64,
        artifacts: usize,
        longest: u64,
    },
}

/// The window of an index that may be cached for `index` seconds, whose artifacts are
/// `exposures`. A cache can hold an old index while it fetches a new artifact (for as long as
/// it keeps the index), or hold an old artifact while it fetches a new index (for as long as
/// it keeps the artifact); only an artifact whose URL names its digest cannot take other
/// bytes.
pub(crate) fn window(index: u64, exposures: &[Exposure]) -> Window {
    let unaddressed: Vec<u64> = exposures
        .iter()
        .filter(|exposure| !exposure.addressed)
        .map(|exposure| exposure.lifetime)
        .collect();
    if unaddressed.is_empty() {
        return Window::Addressed(exposures.len());
    }
    let longest = unaddressed.iter().copied().max().unwrap_or(0);
    match index.max(longest) {
        0 => Window::NothingCached,
        seconds => Window::Open {
            seconds,
            index,
            artifacts: unaddressed.len(),
            longest,
        },
    }
}

#[cfg(test)]
mod tests;
