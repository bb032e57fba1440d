//! The deadline of one run of the advice, read cooperatively: every loop over the body
//! counts the bytes it reads, and stops once the deadline has passed.
//!
//! The rules are linear, so the work between two readings of the clock is bounded by
//! [`READ_EVERY`] bytes times a constant, plus one search of one regex over one haystack (a
//! line, or the body for the few patterns that span lines), which the regex crate bounds
//! by the haystack's length. Without a deadline the clock is never read.

use std::cell::Cell;
use std::time::Instant;

use regex::{Captures, Match, Regex};

/// How many bytes of work go between two readings of the clock: reading it costs about
/// 25 ns, and 64 KiB of advice about 100 µs.
const READ_EVERY: usize = 64 * 1024;

/// The deadline of one run, if it has one, and the work done since the clock was read.
#[derive(Debug)]
pub(super) struct Clock {
    deadline: Option<Instant>,
    /// Bytes read since the clock was last read.
    unread: Cell<usize>,
    /// Set once the deadline has passed; the rules then stop, and their advice is dropped.
    passed: Cell<bool>,
}

impl Clock {
    /// A clock without a deadline: it never stops a rule.
    pub(super) fn unlimited() -> Self {
        Self {
            deadline: None,
            unread: Cell::new(0),
            passed: Cell::new(false),
        }
    }

    /// A clock that stops every rule at `deadline`.
    pub(super) fn until(deadline: Instant) -> Self {
        Self {
            deadline: Some(deadline),
            ..Self::unlimited()
        }
    }

    /// Counts `bytes` of work, and says whether the deadline has passed. The time is read
    /// once per [`READ_EVERY`] bytes.
    pub(super) fn spend(&self, bytes: usize) -> bool {
        if self.passed.get() {
            return true;
        }
        let unread = self.unread.get().saturating_add(bytes);
        if unread < READ_EVERY {
            self.unread.set(unread);
            return false;
        }
        self.unread.set(0);
        self.passed_now()
    }

    /// Whether the deadline has passed, reading the time now.
    pub(super) fn passed_now(&self) -> bool {
        if let Some(deadline) = self.deadline
            && !self.passed.get()
            && Instant::now() >= deadline
        {
            self.passed.set(true);
        }
        self.passed.get()
    }

    /// The items of `items` until the deadline, each costing `cost` bytes of work.
    pub(super) fn bounded<'c, T>(
        &'c self,
        items: impl Iterator<Item = T> + 'c,
        cost: impl Fn(&T) -> usize + 'c,
    ) -> impl Iterator<Item = T> + 'c {
        items.take_while(move |item| !self.spend(cost(item)))
    }

    /// The matches of `regex` in `haystack` until the deadline; each costs the bytes from
    /// the end of the one before.
    pub(super) fn matches<'c, 'h: 'c>(
        &'c self,
        regex: &'c Regex,
        haystack: &'h str,
    ) -> impl Iterator<Item = Match<'h>> + 'c {
        let mut read = 0;
        regex.find_iter(haystack).take_while(move |found| {
            let cost = found.end().saturating_sub(read);
            read = found.end();
            !self.spend(cost)
        })
    }

    /// The matches of `regex` in `haystack`, with their groups, until the deadline; each
    /// costs the bytes from the end of the one before.
    pub(super) fn captures<'c, 'h: 'c>(
        &'c self,
        regex: &'c Regex,
        haystack: &'h str,
    ) -> impl Iterator<Item = Captures<'h>> + 'c {
        let mut read = 0;
        regex.captures_iter(haystack).take_while(move |captures| {
            let end = captures.get(0).map_or(read, |found| found.end());
            let cost = end.saturating_sub(read);
            read = end;
            !self.spend(cost)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn an_unlimited_clock_never_stops() {
        let clock = Clock::unlimited();
        assert!(!clock.spend(usize::MAX));
        assert!(!clock.spend(usize::MAX));
        assert!(!clock.passed_now());
    }

    #[test]
    fn a_passed_deadline_stops_at_the_next_reading() {
        let clock = Clock::until(Instant::now());
        assert!(
            !clock.spend(1),
            "the time is read once per {READ_EVERY} bytes"
        );
        assert!(clock.spend(READ_EVERY));
        assert!(clock.spend(0), "it stays passed");
        let items: Vec<u32> = Clock::until(Instant::now())
            .bounded(0..10, |_| READ_EVERY)
            .collect();
        assert_eq!(items, [0u32; 0]);
    }

    #[test]
    fn a_later_deadline_lets_the_work_through() {
        let clock = Clock::until(Instant::now() + Duration::from_secs(3600));
        let items: Vec<u32> = clock.bounded(0..10, |_| READ_EVERY).collect();
        assert_eq!(items.len(), 10);
        let words = Regex::new(r"\w+").unwrap();
        assert_eq!(clock.captures(&words, "a b c").count(), 3);
        assert!(!clock.passed_now());
    }
}
