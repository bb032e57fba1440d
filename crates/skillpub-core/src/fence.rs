//! Finding the YAML frontmatter in a `SKILL.md`: the block between the opening `---` line and
//! the next line that is exactly `---`, and the body after it.

use crate::error::ErrorKind;

const UTF8_BOM: char = '\u{feff}';
const DELIMITER: &str = "---";

/// Returns the YAML between the opening `---` line and the next line that is exactly `---`.
///
/// A UTF-8 byte order mark before the first line and CRLF line endings are accepted. A `---`
/// that is not a whole line (inside a value, or with other text on the line) does not close
/// the block.
pub(crate) fn yaml_block(text: &str) -> Result<&str, ErrorKind> {
    split(text).map(|(yaml, _)| yaml)
}

/// Returns the YAML block, as [`yaml_block`] finds it, and the body: everything after the
/// closing `---` line.
pub(crate) fn split(text: &str) -> Result<(&str, &str), ErrorKind> {
    let text = text.strip_prefix(UTF8_BOM).unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().ok_or(ErrorKind::FrontmatterMissing)?;
    if !is_delimiter(first) {
        return Err(ErrorKind::FrontmatterMissing);
    }
    let start = first.len();
    let mut offset = start;
    for line in lines {
        if is_delimiter(line) {
            return Ok((&text[start..offset], &text[offset + line.len()..]));
        }
        offset += line.len();
    }
    match document_marker(&text[start..]) {
        // The block starts on the line after the opening `---`.
        Some((line, text)) => Err(ErrorKind::FrontmatterFence {
            line: line + 1,
            text,
        }),
        None => Err(ErrorKind::FrontmatterUnclosed),
    }
}

/// The first line (1-based) that YAML reads as a document marker: `---` or `...` at the start
/// of a line, then the end of the line or white space. Inside the frontmatter such a line is
/// always a mistake for the closing fence: it is not one, and YAML starts a new document there.
pub(crate) fn document_marker(yaml: &str) -> Option<(u64, String)> {
    yaml.lines().zip(1..).find_map(|(line, number)| {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let marker = ["---", "..."].into_iter().any(|marker| {
            line.strip_prefix(marker)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\t']))
        });
        marker.then(|| (number, line.to_owned()))
    })
}

fn is_delimiter(line: &str) -> bool {
    let line = line.strip_suffix('\n').unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    line == DELIMITER
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! block {
        ($name:ident, $text:expr, $yaml:expr) => {
            #[test]
            fn $name() {
                assert_eq!(yaml_block($text), Ok($yaml));
            }
        };
    }

    macro_rules! no_block {
        ($name:ident, $text:expr, $kind:expr) => {
            #[test]
            fn $name() {
                assert_eq!(yaml_block($text), Err($kind));
            }
        };
    }

    block!(plain, "---\nname: a\n---\nbody", "name: a\n");
    block!(crlf_lines, "---\r\nname: a\r\n---\r\nbody", "name: a\r\n");
    block!(byte_order_mark, "\u{feff}---\nname: a\n---\n", "name: a\n");
    block!(
        closing_line_at_end_of_file,
        "---\nname: a\n---",
        "name: a\n"
    );
    block!(empty_block, "---\n---\n", "");
    block!(
        dashes_inside_a_value,
        "---\ndescription: a---b\n---\n",
        "description: a---b\n"
    );
    block!(
        indented_dashes_do_not_close,
        "---\nd: |\n  ---\n---\n",
        "d: |\n  ---\n"
    );
    block!(
        longer_rule_does_not_close,
        "---\nd: x\n----\n---\n",
        "d: x\n----\n"
    );
    block!(
        dashes_with_trailing_text_do_not_close,
        "---\nd: x\n--- # no\n---\n",
        "d: x\n--- # no\n"
    );

    no_block!(empty_file, "", ErrorKind::FrontmatterMissing);
    no_block!(
        no_opening_line,
        "# Title\n---\n",
        ErrorKind::FrontmatterMissing
    );
    no_block!(
        leading_blank_line,
        "\n---\nname: a\n---\n",
        ErrorKind::FrontmatterMissing
    );
    no_block!(
        four_dashes_open_nothing,
        "----\nname: a\n---\n",
        ErrorKind::FrontmatterMissing
    );
    no_block!(
        never_closed,
        "---\nname: a\n",
        ErrorKind::FrontmatterUnclosed
    );
    no_block!(only_the_opening_line, "---", ErrorKind::FrontmatterUnclosed);
    no_block!(
        a_trailing_space_makes_no_fence,
        "---\nname: a\n--- \n# Body\n",
        ErrorKind::FrontmatterFence {
            line: 3,
            text: "--- ".into()
        }
    );
    no_block!(
        a_document_end_marker_is_no_fence,
        "---\r\nname: a\r\n...\r\n# Body\r\n",
        ErrorKind::FrontmatterFence {
            line: 3,
            text: "...".into()
        }
    );

    #[test]
    fn the_body_is_what_follows_the_closing_line() {
        assert_eq!(
            split("\u{feff}---\r\nname: a\r\n---\r\n# Body\r\n"),
            Ok(("name: a\r\n", "# Body\r\n"))
        );
        assert_eq!(split("---\nname: a\n---"), Ok(("name: a\n", "")));
    }

    macro_rules! marker {
        ($name:ident, $yaml:expr, $found:expr) => {
            #[test]
            fn $name() {
                assert_eq!(
                    document_marker($yaml),
                    $found.map(|(line, text): (u64, &str)| (line, text.to_owned()))
                );
            }
        };
    }

    marker!(
        marker_with_a_trailing_space,
        "a: 1\n--- \n",
        Some((2, "--- "))
    );
    marker!(
        marker_with_a_tab,
        "a: 1\n---\tb: 2\n",
        Some((2, "---\tb: 2"))
    );
    marker!(
        marker_with_a_comment,
        "a: 1\n--- # end\n",
        Some((2, "--- # end"))
    );
    marker!(document_end, "a: 1\n...\n", Some((2, "...")));
    marker!(
        bare_fence_at_the_end_of_input,
        "a: 1\n---",
        Some((2, "---"))
    );
    marker!(dashes_glued_to_text_are_text, "a: 1\n---b\n", None);
    marker!(indented_dashes_are_content, "a: |\n  --- x\n", None);
    marker!(four_dashes_are_text, "a: 1\n----\n", None);
}
