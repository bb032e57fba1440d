use std::sync::Arc;
use std::time::Duration;

use super::{Limits, Sessions};
use crate::live::Versions;

fn sessions(max: usize, idle: Duration) -> Arc<Sessions> {
    Arc::new(Sessions::new(Limits { max, idle }))
}

const LONG: Duration = Duration::from_secs(600);

#[test]
fn a_place_held_by_an_initialize_counts_toward_the_cap_until_dropped_or_opened() {
    let sessions = sessions(2, LONG);
    let first = sessions.reserve().unwrap();
    let second = sessions.reserve().unwrap();
    let full = sessions.reserve().unwrap_err();
    assert_eq!(full.max, 2);
    drop(second);
    let third = sessions.reserve().unwrap();
    first.open(Versions::default());
    third.open(Versions::default());
    assert_eq!(sessions.len(), 2);
    assert!(sessions.reserve().is_err());
}

#[test]
fn past_the_cap_the_wait_is_the_time_until_a_session_can_expire() {
    let sessions = sessions(1, LONG);
    sessions.reserve().unwrap().open(Versions::default());
    let full = sessions.reserve().unwrap_err();
    assert!(full.retry_after <= LONG, "{full:?}");
    assert!(
        full.retry_after > LONG - Duration::from_secs(60),
        "{full:?}"
    );
}

#[test]
fn ids_are_uuids_and_anything_else_is_no_session() {
    let sessions = sessions(10, LONG);
    let id = sessions.reserve().unwrap().open(Versions::default());
    assert_eq!(uuid::Uuid::try_parse(&id).unwrap().get_version_num(), 4);
    assert!(sessions.enter(&id).is_some());
    assert!(
        sessions.enter(&id.to_uppercase()).is_some(),
        "the same UUID"
    );
    for other in [
        "",
        "x",
        "2b0b4e8e-6f4b-4a43-9b54-3d6f0e0c2a11",
        &format!("{id}0"),
    ] {
        assert!(sessions.enter(other).is_none(), "{other}");
        assert!(!sessions.close(other), "{other}");
    }
}

#[test]
fn a_session_expires_an_idle_time_after_its_last_request_ended_never_during_one() {
    let idle = Duration::from_millis(50);
    let sessions = sessions(10, idle);
    let id = sessions.reserve().unwrap().open(Versions::default());
    let busy = sessions.enter(&id).unwrap();
    std::thread::sleep(3 * idle);
    let again = sessions
        .enter(&id)
        .expect("a request in progress holds the session");
    drop((busy, again));
    std::thread::sleep(3 * idle);
    assert!(sessions.enter(&id).is_none(), "idle past its idle time");
    assert_eq!(sessions.len(), 0, "dropped when its id came again");
}

#[test]
fn expired_sessions_give_their_places_back_at_the_next_sweep() {
    let idle = Duration::from_millis(20);
    let sessions = sessions(2, idle);
    for _ in 0..2 {
        sessions.reserve().unwrap().open(Versions::default());
    }
    assert!(sessions.reserve().is_err());
    std::thread::sleep(5 * idle);
    let place = sessions.reserve().expect("the expired sessions were swept");
    assert_eq!(sessions.len(), 0);
    drop(place);
}

#[tokio::test]
async fn a_new_stream_ends_the_one_before_and_close_ends_the_last() {
    let sessions = sessions(10, LONG);
    let id = sessions.reserve().unwrap().open(Versions::default());
    let (first, first_ended, _) = sessions.open_stream(&id).unwrap();
    let (second, second_ended, _) = sessions.open_stream(&id).unwrap();
    tokio::time::timeout(LONG, first_ended.notified())
        .await
        .unwrap();
    drop(first);
    assert!(sessions.close(&id));
    tokio::time::timeout(LONG, second_ended.notified())
        .await
        .unwrap();
    drop(second);
    assert!(!sessions.close(&id));
    assert!(sessions.open_stream(&id).is_none());
}
