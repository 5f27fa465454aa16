//! The crate's top-level modules form the layers `docs/architecture.md` draws: a module uses only
//! modules of layers below its own, so the graph has no cycle and the page stays true.
//!
//! A use is any `crate::<module>` path in code (comments are left out), and `super::` paths that
//! climb out of a top-level module. The layers are read from the page's block that follows the
//! line "Module layers, top first".

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
const DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/architecture.md");

/// The layers of the architecture page, top first: each a set of module names.
fn documented_layers() -> Vec<BTreeSet<String>> {
    let doc = fs::read_to_string(DOC).expect("docs/architecture.md");
    let mut lines = doc.lines().skip_while(|l| !l.contains("Module layers, top first"));
    assert!(lines.next().is_some(), "docs/architecture.md has no \"Module layers, top first\" block");
    let mut lines = lines.skip_while(|l| !l.trim_start().starts_with("```"));
    lines.next();
    let mut layers = Vec::new();
    for line in lines {
        if line.trim_start().starts_with("```") {
            break;
        }
        let names = line.split('#').next().unwrap_or("");
        let layer: BTreeSet<String> = names
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .map(|w| w.trim_matches('`').to_string())
            .collect();
        if !layer.is_empty() {
            layers.push(layer);
        }
    }
    assert!(!layers.is_empty(), "the module-layers block of docs/architecture.md is empty");
    layers
}

/// The crate's top-level modules, as `lib.rs` declares them.
fn top_level_modules() -> BTreeSet<String> {
    let lib = fs::read_to_string(Path::new(SRC).join("lib.rs")).unwrap();
    lib.lines()
        .map(str::trim)
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .map(|l| l.trim_end_matches(';').to_string())
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file without its comments (line comments, doc comments and block
/// comments; string literals are kept as they are).
fn code_of(text: &str) -> String {
    let mut code = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            code.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    code.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                code.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        code.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => code.push(c),
        }
    }
    code
}

/// The identifier that starts `text`.
fn ident(text: &str) -> &str {
    let end = text.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(text.len());
    &text[..end]
}

/// Edges between top-level modules: (user, used) → the files where the use occurs.
fn module_graph(modules: &BTreeSet<String>) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let mut edges: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for file in files {
        let rel = file.strip_prefix(SRC).unwrap().to_string_lossy().replace('\\', "/");
        let parts: Vec<&str> = rel.split('/').collect();
        let top = parts[0].trim_end_matches(".rs").to_string();
        if top == "lib" {
            continue;
        }
        // How deep the file's module sits below its top-level module: `super::` climbs one level.
        let depth = if parts.len() == 1 {
            0
        } else {
            let last = parts[parts.len() - 1];
            parts.len() - 1 - usize::from(last == "mod.rs")
        };
        let code = code_of(&fs::read_to_string(&file).unwrap());
        let mut used = BTreeSet::new();
        for (i, _) in code.match_indices("crate::") {
            let before = code[..i].chars().next_back();
            if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                continue; // e.g. `mmtcp_crate::`
            }
            used.insert(ident(&code[i + "crate::".len()..]).to_string());
        }
        for (i, _) in code.match_indices("super::") {
            let mut rest = &code[i..];
            let mut climbs = 0;
            while let Some(r) = rest.strip_prefix("super::") {
                climbs += 1;
                rest = r;
            }
            if climbs > depth {
                used.insert(ident(rest).to_string());
            }
        }
        for m in used {
            if m != top && modules.contains(&m) {
                edges.entry((top.clone(), m)).or_default().insert(rel.clone());
            }
        }
    }
    edges
}

#[test]
fn every_module_uses_only_modules_of_lower_layers() {
    let modules = top_level_modules();
    let layers = documented_layers();
    let mut layer_of = BTreeMap::new();
    for (i, layer) in layers.iter().enumerate() {
        for m in layer {
            assert!(modules.contains(m), "docs/architecture.md lists `{m}`, which lib.rs does not declare");
            assert!(layer_of.insert(m.clone(), i).is_none(), "`{m}` is listed twice in the layers");
        }
    }
    let missing: Vec<&String> = modules.iter().filter(|m| !layer_of.contains_key(*m)).collect();
    assert!(missing.is_empty(), "modules missing from the layers of docs/architecture.md: {missing:?}");

    let mut wrong = Vec::new();
    for ((user, used), files) in module_graph(&modules) {
        // Layers are listed top first: a use must go to a later (lower) line.
        if layer_of[&used] <= layer_of[&user] {
            let files: Vec<&str> = files.iter().map(String::as_str).collect();
            wrong.push(format!("{user} → {used} (in {})", files.join(", ")));
        }
    }
    assert!(
        wrong.is_empty(),
        "uses that do not go down the layers of docs/architecture.md:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn the_reader_sees_uses_in_code_and_not_in_comments() {
    let code = code_of("use crate::a::B; // crate::c\n/// [`crate::d`]\nlet s = \"// x\"; crate::e::f();");
    assert!(code.contains("crate::a") && code.contains("crate::e"));
    assert!(!code.contains("crate::c") && !code.contains("crate::d"));
    assert!(code.contains("\"// x\""), "strings are kept whole");
    assert_eq!(code_of("a /* crate::x */ b"), "a  b");
    assert_eq!(ident("net::Packet"), "net");
}
