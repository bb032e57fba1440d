//! The macro behind the table of checks in `table.rs`, as axum-core's `macros.rs` is behind
//! axum's rejections: the table says what each check is, the macro writes the code around it.

/// Declares every check and every message of `skillpub check`.
///
/// `kinds` has one line per check: its variant, its code, the status of a line that reports a
/// problem with it (`Fail` for a MUST, `Warn` for a SHOULD: its severity is an error or a
/// warning), a short title (what holds when it passes) and how to fix it; the macro makes [`CheckKind`](crate::CheckKind) and its
/// accessors, and the variant's docs from the title and the fix. `messages` has one line per
/// message: `ok` or `problem`, a constructor's name and arguments, and its template; the
/// macro makes a `Finding` constructor that takes the kind first, so a message can serve the
/// same check on the index and on an entry.
macro_rules! checks {
    (
        $(#[$meta:meta])*
        kinds {
            $( $kind:ident = $code:literal, $severity:ident, $title:literal, $fix:literal; )*
        }
        messages {
            $( $outcome:ident $make:ident ( $( $arg:ident : $ty:ty ),* ) => $message:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum CheckKind {
            $(
                #[doc = concat!("`", $code, "` (", checks!(@label $severity), "): ", $title, ".")]
                #[doc = ""]
                #[doc = $fix]
                $kind,
            )*
        }

        impl CheckKind {
            /// Every kind, in the order of the table.
            pub const ALL: &[CheckKind] = &[$(CheckKind::$kind),*];

            /// The stable code, `<subject>.<problem>`, such as `entry.digest`.
            #[must_use]
            pub fn code(self) -> &'static str {
                match self {
                    $(Self::$kind => $code,)*
                }
            }

            /// How much a problem with this check matters: [`Severity::Error`] for a MUST (its
            /// line is `FAIL`), [`Severity::Warning`] for a SHOULD (`warn`).
            #[must_use]
            pub fn severity(self) -> Severity {
                match self {
                    $(Self::$kind => checks!(@severity $severity),)*
                }
            }

            /// What holds when the check passes, in a few words.
            #[must_use]
            pub fn title(self) -> &'static str {
                match self {
                    $(Self::$kind => $title,)*
                }
            }

            /// How to fix a problem with this check.
            #[must_use]
            pub fn fix(self) -> &'static str {
                match self {
                    $(Self::$kind => $fix,)*
                }
            }
        }

        impl Finding {
            $(
                pub(crate) fn $make(kind: CheckKind, $($arg: $ty),*) -> Self {
                    Self::new(kind, checks!(@status $outcome kind), format!($message))
                }
            )*
        }
    };
    (@status ok $kind:ident) => { Status::Ok };
    (@status problem $kind:ident) => { Status::from($kind.severity()) };
    (@severity Fail) => { Severity::Error };
    (@severity Warn) => { Severity::Warning };
    (@label Fail) => { "FAIL" };
    (@label Warn) => { "warn" };
}
