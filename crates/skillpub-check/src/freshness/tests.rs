use http::{HeaderMap, HeaderValue};

use super::{Exposure, Window, http_date, lifetime, window};

/// `Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110's example.
const EXAMPLE: u64 = 784_111_777;

fn headers(fields: &[(&'static str, &str)]) -> HeaderMap {
    let mut map = HeaderMap::new();
    for (name, value) in fields {
        map.append(*name, HeaderValue::from_str(value).unwrap());
    }
    map
}

macro_rules! lifetime {
    ($name:ident, [$($field:expr),*], $seconds:expr) => {
        #[test]
        fn $name() {
            assert_eq!(lifetime(&headers(&[$($field),*]), EXAMPLE), $seconds);
        }
    };
}

lifetime!(max_age, [("cache-control", "public, max-age=300")], 300);
lifetime!(
    s_maxage_when_longer,
    [("cache-control", "max-age=60, s-maxage=600")],
    600
);
lifetime!(
    max_age_when_longer,
    [("cache-control", "s-maxage=60, max-age=600")],
    600
);
lifetime!(
    no_cache,
    [("cache-control", "public, no-cache, no-transform")],
    0
);
lifetime!(
    no_store_wins,
    [("cache-control", "max-age=300, no-store")],
    0
);
lifetime!(
    qualified_no_cache_does_not_forbid,
    [("cache-control", "no-cache=\"set-cookie\", max-age=30")],
    30
);
lifetime!(
    upper_case_directives,
    [("cache-control", "Public, MAX-AGE=120")],
    120
);
lifetime!(quoted_max_age, [("cache-control", "max-age=\"90\"")], 90);
lifetime!(
    an_invalid_max_age_is_stale,
    [("cache-control", "max-age=soon")],
    0
);
lifetime!(
    two_fields_combine,
    [("cache-control", "public"), ("cache-control", "max-age=45")],
    45
);
lifetime!(
    immutable,
    [("cache-control", "public, max-age=31536000, immutable")],
    31_536_000
);
lifetime!(
    expires_minus_date,
    [
        ("date", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("expires", "Sun, 06 Nov 1994 08:59:37 GMT")
    ],
    600
);
lifetime!(
    expires_without_date_is_from_now,
    [("expires", "Sun, 06 Nov 1994 09:49:37 GMT")],
    3600
);
lifetime!(
    max_age_wins_over_expires,
    [
        ("cache-control", "max-age=5"),
        ("expires", "Sun, 06 Nov 1994 09:49:37 GMT")
    ],
    5
);
lifetime!(an_expires_of_zero_is_in_the_past, [("expires", "0")], 0);
lifetime!(
    an_expires_in_the_past,
    [("expires", "Sun, 06 Nov 1994 08:00:00 GMT")],
    0
);
lifetime!(nothing, [], 0);
lifetime!(
    only_last_modified_is_a_heuristic_not_counted,
    [("last-modified", "Sun, 06 Nov 1994 08:49:37 GMT")],
    0
);

#[test]
fn http_dates_are_imf_fixdates_only() {
    assert_eq!(http_date("Sun, 06 Nov 1994 08:49:37 GMT"), Some(EXAMPLE));
    assert_eq!(http_date("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
    assert_eq!(
        http_date("Tue, 29 Feb 2028 12:00:00 GMT"),
        Some(1_835_438_400)
    );
    for other in [
        "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994",
        "Sun, 06 Nov 1994 08:49:37 UTC",
        "Sun, 6 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:49:37 GMT",
        "Sun, 06 Foo 1994 08:49:37 GMT",
        "",
    ] {
        assert_eq!(http_date(other), None, "{other}");
    }
}

const fn canonical(lifetime: u64) -> Exposure {
    Exposure {
        addressed: false,
        lifetime,
    }
}

const fn addressed(lifetime: u64) -> Exposure {
    Exposure {
        addressed: true,
        lifetime,
    }
}

#[test]
fn the_window_is_the_longer_of_the_index_and_the_canonical_artifacts() {
    let open = |seconds, index, artifacts, longest| Window::Open {
        seconds,
        index,
        artifacts,
        longest,
    };
    assert_eq!(
        window(300, &[canonical(300), canonical(300)]),
        open(300, 300, 2, 300)
    );
    // A fresh index with an old artifact, and an old index with a fresh artifact.
    assert_eq!(window(0, &[canonical(600)]), open(600, 0, 1, 600));
    assert_eq!(window(120, &[canonical(0)]), open(120, 120, 1, 0));
    // Only the artifacts whose URL does not name their digest count.
    assert_eq!(
        window(60, &[addressed(31_536_000), canonical(30)]),
        open(60, 60, 1, 30)
    );
}

#[test]
fn addressed_urls_or_nothing_cached_close_the_window() {
    assert_eq!(
        window(300, &[addressed(31_536_000), addressed(0)]),
        Window::Addressed(2)
    );
    assert_eq!(
        window(0, &[canonical(0), addressed(31_536_000)]),
        Window::NothingCached
    );
}
