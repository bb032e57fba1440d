//! Pages of a list: a cursor is the offset of the page's first item, handed out as the
//! previous page's `nextCursor`.

use rmcp::ErrorData;

/// One page of at most `size` of `items` from `cursor` (an offset this server handed out),
/// and the cursor of the next page, if any.
///
/// # Errors
///
/// `-32602` for a cursor this server did not hand out.
pub(crate) fn page<T: Clone>(
    items: &[T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(cursor) => cursor
            .parse::<usize>()
            .ok()
            .filter(|start| *start <= items.len())
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    format!("the cursor `{cursor}` was not handed out by this server"),
                    None,
                )
            })?,
    };
    let end = (start + size).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}
