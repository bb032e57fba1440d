//! What must hold for everything the client accepts, whatever it was given. Shared by the
//! property tests here and the fuzz targets in `fuzz/`, which include these files by path.

mod index;
mod unpack;

pub(crate) use index::assert_index_is_sound;
pub(crate) use unpack::{Limits, assert_unpacked_is_sound, unpack};
