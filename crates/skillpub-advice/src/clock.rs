//! The work and the deadline of one run of the advice. Every loop over the body and every
//! search of a pattern goes through the run's clock, which counts the bytes it hands them:
//! that count is the work the rules do, the same on every machine, which the linearity test
//! reads (`scaling.rs`), and the deadline is read once per [`READ_EVERY`] bytes of it.
//! Clippy's `disallowed-methods` (this crate's `clippy.toml`) refuses a search of a
//! [`Regex`] made anywhere else, so no search goes uncounted.
//!
//! A search is counted as every byte it may read: from where it starts to the end of its
//! haystack. A pass of an iterator of matches counts its haystack once. The rules are
//! linear, so the work between two readings of the clock is bounded by [`READ_EVERY`] bytes
//! times a constant, plus one search of one regex over one haystack (a line, or the body for
//! the few patterns that span lines), which the regex crate bounds by the haystack's length.
//! Without a deadline the time is never read.

use std::borrow::Cow;
use std::cell::Cell;
use std::time::Instant;

use regex::{Captures, Match, Regex};

/// How many bytes of work go between two readings of the clock: reading it costs about
/// 25 ns, and 64 KiB of advice about 100 µs.
const READ_EVERY: usize = 64 * 1024;

/// The deadline of one run, if it has one, and the work done.
#[derive(Debug)]
pub(super) struct Clock {
    deadline: Option<Instant>,
    /// Bytes of work counted since the run began.
    spent: Cell<u64>,
    /// What `spent` was when the time was last read.
    read_at: Cell<u64>,
    /// Set once the deadline has passed; the rules then stop, and their advice is dropped.
    passed: Cell<bool>,
}

impl Clock {
    /// A clock without a deadline: it never stops a rule.
    pub(super) fn unlimited() -> Self {
        Self {
            deadline: None,
            spent: Cell::new(0),
            read_at: Cell::new(0),
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
    fn spend(&self, bytes: usize) -> bool {
        if self.passed.get() {
            return true;
        }
        let spent = self
            .spent
            .get()
            .saturating_add(u64::try_from(bytes).unwrap_or(u64::MAX));
        self.spent.set(spent);
        if spent - self.read_at.get() < READ_EVERY as u64 {
            return false;
        }
        self.read_at.set(spent);
        self.passed_now()
    }

    /// The bytes of work counted so far.
    #[cfg(test)]
    pub(super) fn spent(&self) -> u64 {
        self.spent.get()
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

    /// Whether `regex` matches `haystack`.
    pub(super) fn is_match(&self, regex: &Regex, haystack: &str) -> bool {
        self.is_match_at(regex, haystack, 0)
    }

    /// Whether `regex` matches `haystack` from byte `start` on, looking behind `start` only
    /// for the assertions (`\b`, `^`); counts the bytes from `start`.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn is_match_at(&self, regex: &Regex, haystack: &str, start: usize) -> bool {
        self.spend(haystack.len().saturating_sub(start));
        regex.is_match_at(haystack, start)
    }

    /// The first match of `regex` in `haystack`.
    pub(super) fn find<'h>(&self, regex: &Regex, haystack: &'h str) -> Option<Match<'h>> {
        self.find_at(regex, haystack, 0)
    }

    /// The first match of `regex` in `haystack` from byte `start` on, as
    /// [`is_match_at`](Self::is_match_at) reads it.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn find_at<'h>(
        &self,
        regex: &Regex,
        haystack: &'h str,
        start: usize,
    ) -> Option<Match<'h>> {
        self.spend(haystack.len().saturating_sub(start));
        regex.find_at(haystack, start)
    }

    /// The first match of `regex` in `haystack`, with its groups.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn captures<'h>(&self, regex: &Regex, haystack: &'h str) -> Option<Captures<'h>> {
        self.spend(haystack.len());
        regex.captures(haystack)
    }

    /// `haystack` with its first match of `regex` replaced by `with`.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn replace<'h>(&self, regex: &Regex, haystack: &'h str, with: &str) -> Cow<'h, str> {
        self.spend(haystack.len());
        regex.replace(haystack, with)
    }

    /// The matches of `regex` in `haystack` until the deadline.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn find_iter<'c, 'h: 'c>(
        &'c self,
        regex: &'c Regex,
        haystack: &'h str,
    ) -> impl Iterator<Item = Match<'h>> + 'c {
        self.through(haystack, regex.find_iter(haystack), Match::end)
    }

    /// The matches of `regex` in `haystack`, with their groups, until the deadline.
    #[expect(
        clippy::disallowed_methods,
        reason = "the one place that searches, counting"
    )]
    pub(super) fn captures_iter<'c, 'h: 'c>(
        &'c self,
        regex: &'c Regex,
        haystack: &'h str,
    ) -> impl Iterator<Item = Captures<'h>> + 'c {
        let end = |captures: &Captures<'_>| captures.get(0).map_or(0, |found| found.end());
        self.through(haystack, regex.captures_iter(haystack), end)
    }

    /// The matches of one pass over `haystack` until the deadline: each costs the bytes
    /// from the end of the one before to its own end, and the end of the pass the rest.
    fn through<'c, T: 'c>(
        &'c self,
        haystack: &str,
        mut matches: impl Iterator<Item = T> + 'c,
        end: impl Fn(&T) -> usize + 'c,
    ) -> impl Iterator<Item = T> + 'c {
        let length = haystack.len();
        let mut read = 0;
        let mut over = false;
        std::iter::from_fn(move || {
            if over {
                return None;
            }
            let Some(found) = matches.next() else {
                over = true;
                self.spend(length.saturating_sub(read));
                return None;
            };
            let cost = end(&found).saturating_sub(read);
            read = read.max(end(&found));
            over = self.spend(cost);
            (!over).then_some(found)
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
        assert_eq!(clock.captures_iter(&words, "a b c").count(), 3);
        assert!(!clock.passed_now());
    }

    #[test]
    fn a_search_counts_every_byte_it_may_read() {
        let clock = Clock::unlimited();
        let word = Regex::new(r"\w+").unwrap();
        assert!(clock.is_match(&word, "ab cd"));
        assert_eq!(
            clock.spent(),
            5,
            "the whole haystack, wherever the match is"
        );
        assert!(clock.find_at(&word, "ab cd", 3).is_some());
        assert_eq!(clock.spent(), 7, "from where the search starts");
        assert!(clock.captures(&word, "").is_none());
        assert_eq!(clock.replace(&word, "ab", "x"), "x");
        assert_eq!(clock.spent(), 9);
    }

    #[test]
    fn a_pass_of_matches_counts_its_haystack_once() {
        let clock = Clock::unlimited();
        let word = Regex::new(r"\w+").unwrap();
        assert_eq!(clock.find_iter(&word, "ab cd  ").count(), 2);
        assert_eq!(clock.spent(), 7, "to the last match, then the rest");
        assert_eq!(clock.captures_iter(&word, "ab cd").take(1).count(), 1);
        assert_eq!(clock.spent(), 9, "a pass left early counts what it read");
        let lines: usize = clock
            .bounded(["a", "bc"].into_iter(), |line| line.len() + 1)
            .count();
        assert_eq!((lines, clock.spent()), (2, 14));
    }
}
