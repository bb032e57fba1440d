use std::time::Duration;

use super::*;

async fn server() -> Serve {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind 127.0.0.1:0");
    serve(listener, Router::new())
}

/// `$knob` set to `$value` is refused with `$message`.
macro_rules! refuses {
    ($name:ident, $knob:ident($value:expr), $message:literal) => {
        #[tokio::test]
        async fn $name() {
            let error = server().await.$knob($value).limits().unwrap_err();
            assert_eq!(error.to_string(), $message);
        }
    };
}

refuses!(
    a_zero_header_timeout,
    header_read_timeout(Duration::ZERO),
    "`header_read_timeout` is 0ns; give more than zero and at most 3600s"
);
refuses!(
    a_zero_idle_timeout,
    idle_timeout(Duration::ZERO),
    "`idle_timeout` is 0ns; give more than zero and at most 3600s"
);
refuses!(
    an_idle_timeout_over_an_hour,
    idle_timeout(Duration::from_secs(3601)),
    "`idle_timeout` is 3601s; give more than zero and at most 3600s"
);
refuses!(
    a_zero_send_timeout,
    send_timeout(Duration::ZERO),
    "`send_timeout` is 0ns; give more than zero and at most 3600s"
);
refuses!(
    an_endless_header_timeout,
    header_read_timeout(Duration::MAX),
    "`header_read_timeout` is 18446744073709551615.999999999s; give more than zero and at most 3600s"
);
refuses!(
    a_grace_period_over_an_hour,
    grace_period(Duration::from_secs(7200)),
    "`grace_period` is 7200s; give zero and at most 3600s"
);
refuses!(
    a_zero_body_timeout,
    body_read_timeout(Duration::ZERO),
    "`body_read_timeout` is 0ns; give more than zero and at most 3600s"
);
refuses!(
    a_request_timeout_over_an_hour,
    request_read_timeout(Duration::from_secs(3601)),
    "`request_read_timeout` is 3601s; give more than zero and at most 3600s"
);
refuses!(
    a_body_budget_below_a_mebibyte,
    body_budget(64 * 1024),
    "`body_budget` is 65536 bytes; give at least 1048576 (1 MiB)"
);
refuses!(
    a_head_size_below_4_kib,
    max_header_size(1024),
    "`max_header_size` is 1024 bytes; give 4096 to 417792 (4 KiB to 408 KiB)"
);
refuses!(
    a_head_size_beyond_the_read_buffer,
    max_header_size(1 << 20),
    "`max_header_size` is 1048576 bytes; give 4096 to 417792 (4 KiB to 408 KiB)"
);
refuses!(
    no_connections,
    max_connections(0),
    "`max_connections` is 0; give at least 1, or leave it unset for no cap"
);

#[tokio::test]
async fn the_defaults_and_the_bounds_are_accepted() {
    let limits = server().await.limits().unwrap();
    assert_eq!(limits.timeouts.header_read, DEFAULT_HEADER_READ_TIMEOUT);
    assert_eq!(limits.timeouts.idle, DEFAULT_IDLE_TIMEOUT);
    assert_eq!(limits.timeouts.send, DEFAULT_SEND_TIMEOUT);
    assert_eq!(limits.timeouts.body_read, DEFAULT_BODY_READ_TIMEOUT);
    assert_eq!(limits.timeouts.request_read, DEFAULT_REQUEST_READ_TIMEOUT);
    assert_eq!(limits.body_budget, DEFAULT_BODY_BUDGET);
    assert_eq!(limits.max_header_size, DEFAULT_MAX_HEADER_SIZE);
    assert_eq!(limits.grace_period, DEFAULT_GRACE_PERIOD);
    assert_eq!(limits.max_connections, None);

    let limits = server()
        .await
        .header_read_timeout(Duration::from_nanos(1))
        .idle_timeout(MAX_TIMEOUT)
        .grace_period(Duration::ZERO)
        .max_connections(1)
        .body_budget(MIN_BODY_BUDGET)
        .request_read_timeout(MAX_TIMEOUT)
        .max_header_size(*HEADER_SIZE_RANGE.end())
        .limits()
        .unwrap();
    assert_eq!(limits.body_budget, MIN_BODY_BUDGET);
    assert_eq!(limits.max_header_size, *HEADER_SIZE_RANGE.end());
    assert_eq!(limits.grace_period, Duration::ZERO);
    assert_eq!(limits.max_connections.map(NonZeroUsize::get), Some(1));
}
