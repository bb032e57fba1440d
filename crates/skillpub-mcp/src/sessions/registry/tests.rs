use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::{AllBusy, Clock, Limits, NoStream, Sessions};
use crate::live::Versions;

/// Sessions on a clock that moves only when [`Time::pass`] says.
fn sessions(max: usize, idle: Duration) -> (Arc<Sessions>, Time) {
    let now = Arc::new(Mutex::new(Instant::now()));
    let clock = Clock::Manual(Arc::clone(&now));
    (
        Arc::new(Sessions::with_clock(Limits { max, idle }, clock)),
        Time(now),
    )
}

struct Time(Arc<Mutex<Instant>>);

impl Time {
    fn pass(&self, time: Duration) {
        *self.0.lock().unwrap() += time;
    }
}

const IDLE: Duration = Duration::from_secs(300);
const SECOND: Duration = Duration::from_secs(1);

fn open(sessions: &Arc<Sessions>) -> String {
    sessions.reserve().unwrap().open(Versions::default())
}

#[test]
fn a_place_held_by_an_initialize_counts_toward_the_cap_until_dropped_or_opened() {
    let (sessions, _) = sessions(2, IDLE);
    let first = sessions.reserve().unwrap();
    let second = sessions.reserve().unwrap();
    assert_eq!(
        sessions.reserve().unwrap_err(),
        AllBusy { max: 2 },
        "places held are not sessions to end"
    );
    drop(second);
    let third = sessions.reserve().unwrap();
    first.open(Versions::default());
    third.open(Versions::default());
    assert_eq!(sessions.len(), 2);
}

#[test]
fn a_full_table_ends_the_least_recently_used_idle_session() {
    let (sessions, time) = sessions(2, IDLE);
    let first = open(&sessions);
    time.pass(SECOND);
    let second = open(&sessions);
    time.pass(SECOND);
    drop(sessions.enter(&first).unwrap());
    time.pass(SECOND);

    let third = open(&sessions);
    assert!(sessions.enter(&second).is_none(), "the least recently used");
    assert!(sessions.enter(&first).is_some());
    assert!(sessions.enter(&third).is_some());
    assert_eq!(sessions.len(), 2);
}

#[test]
fn a_session_with_a_request_or_a_stream_in_progress_is_never_ended_for_another() {
    let (sessions, time) = sessions(2, IDLE);
    let (first, second) = (open(&sessions), open(&sessions));
    let request = sessions.enter(&first).unwrap();
    let (stream, ..) = sessions.open_stream(&second, || Some(())).unwrap();
    time.pass(IDLE * 10);
    assert_eq!(sessions.reserve().unwrap_err(), AllBusy { max: 2 });

    // The request ends: its session is idle, and the one to end for a new one.
    drop(request);
    time.pass(SECOND);
    open(&sessions);
    assert!(sessions.enter(&first).is_none());
    drop(stream);
    assert!(
        sessions.enter(&second).is_some(),
        "kept while its stream was open"
    );
}

#[test]
fn ids_are_uuids_and_anything_else_is_no_session() {
    let (sessions, _) = sessions(10, IDLE);
    let id = open(&sessions);
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
    let (sessions, time) = sessions(10, IDLE);
    let id = open(&sessions);
    let busy = sessions.enter(&id).unwrap();
    time.pass(IDLE * 3);
    let again = sessions
        .enter(&id)
        .expect("a request in progress holds the session");
    drop((busy, again));
    time.pass(IDLE - SECOND);
    drop(
        sessions
            .enter(&id)
            .expect("idle for less than its idle time"),
    );
    time.pass(IDLE);
    assert!(sessions.enter(&id).is_none(), "idle for its idle time");
    assert_eq!(sessions.len(), 0);
}

#[test]
fn expired_sessions_give_their_places_back_as_soon_as_the_table_is_used() {
    let (sessions, time) = sessions(3, IDLE);
    let (first, second) = (open(&sessions), open(&sessions));
    time.pass(IDLE / 2);
    let third = open(&sessions);
    time.pass(IDLE / 2);
    // The first two expire now, the third in half an idle time: any use drops them.
    assert!(!sessions.close("2b0b4e8e-6f4b-4a43-9b54-3d6f0e0c2a11"));
    assert_eq!(sessions.len(), 1);
    assert!(sessions.enter(&first).is_none() && sessions.enter(&second).is_none());
    assert!(sessions.enter(&third).is_some());
}

#[tokio::test]
async fn a_new_stream_ends_the_one_before_and_close_ends_the_last() {
    let (sessions, _) = sessions(10, IDLE);
    let id = open(&sessions);
    let (first, first_ended, ..) = sessions.open_stream(&id, || Some(())).unwrap();
    let (second, second_ended, ..) = sessions.open_stream(&id, || Some(())).unwrap();
    tokio::time::timeout(IDLE, first_ended.notified())
        .await
        .unwrap();
    drop(first);
    assert!(sessions.close(&id));
    tokio::time::timeout(IDLE, second_ended.notified())
        .await
        .unwrap();
    drop(second);
    assert!(!sessions.close(&id));
    assert!(matches!(
        sessions.open_stream(&id, || Some(())),
        Err(NoStream::NoSession)
    ));
}

#[tokio::test]
async fn a_stream_not_admitted_leaves_the_stream_open_before_as_it_was() {
    let (sessions, _) = sessions(10, IDLE);
    let id = open(&sessions);
    let (_open, ended, ..) = sessions.open_stream(&id, || Some(())).unwrap();
    assert!(matches!(
        sessions.open_stream(&id, || None::<()>),
        Err(NoStream::NotAdmitted)
    ));
    let told = tokio::time::timeout(Duration::from_millis(50), ended.notified()).await;
    assert!(told.is_err(), "the open stream was told to end");
    assert!(matches!(
        sessions.open_stream("2b0b4e8e-6f4b-4a43-9b54-3d6f0e0c2a11", || Some(())),
        Err(NoStream::NoSession)
    ));
}

#[test]
fn what_a_stream_told_is_where_the_next_one_starts() {
    use crate::live::List;

    let (sessions, _) = sessions(10, IDLE);
    let id = open(&sessions);
    let later = Versions::default().told(List::Resources, Versions::new(3, 2));
    let (stream, _, from, ()) = sessions.open_stream(&id, || Some(())).unwrap();
    assert_eq!(from, Versions::default());
    stream.told(List::Resources, Versions::new(3, 2));
    drop(stream);
    let (_, _, from, ()) = sessions.open_stream(&id, || Some(())).unwrap();
    assert_eq!(from, later);
    assert_eq!(from, Versions::new(3, 0), "the prompts were not told");
}
