//! The basic demo's `main` is `?` from top to bottom: on an address that is taken it exits with
//! status 1 and one readable line that names the address and says what to do, not a `Debug`
//! dump of an `io::Error`.

use std::net::TcpListener;
use std::process::Command;

use skillpub_testkit::built_binary;

#[test]
fn a_taken_address_is_one_readable_line_and_status_1() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap();
    let output = Command::new(built_binary("examples/basic"))
        .env("SKILLPUB_ADDR", addr.to_string())
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        output.stdout.is_empty(),
        "it announced an index it does not serve"
    );
    let line = stderr.trim_end();
    assert!(!line.contains('\n'), "one line expected:\n{stderr}");
    assert!(
        line.starts_with(&format!("Error: cannot listen on {addr}: ")),
        "{stderr}"
    );
    assert!(
        line.ends_with("; stop what listens there, or choose a free port"),
        "{stderr}"
    );
}
