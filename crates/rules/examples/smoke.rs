//! Temporary smoke run.
fn main() {
    let text = shellgate_rules::DEFAULT_POLICY;
    let table: toml::Table = toml::from_str(text).unwrap();
    let mut all = Vec::new();
    let mut sets = Vec::new();
    for d in table["deny"].as_array().unwrap() {
        for key in ["args_any", "redirect_to", "env"] {
            if let Some(a) = d.get(key) {
                let v: Vec<String> = a.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_owned()).collect();
                all.extend(v.clone());
                sets.push(v);
            }
        }
    }
    println!("{} globs in {} sets", all.len(), sets.len());
    let t = std::time::Instant::now();
    for _ in 0..10 {
        for s in &sets {
            let mut b = globset::GlobSetBuilder::new();
            for p in s { b.add(globset::GlobBuilder::new(p).literal_separator(true).build().unwrap()); }
            let _ = b.build().unwrap();
        }
    }
    println!("separate {:?}", t.elapsed() / 10);
    let t = std::time::Instant::now();
    for _ in 0..10 {
        let mut b = globset::GlobSetBuilder::new();
        for p in &all { b.add(globset::GlobBuilder::new(p).literal_separator(true).build().unwrap()); }
        let _ = b.build().unwrap();
    }
    println!("combined {:?}", t.elapsed() / 10);
    let t = std::time::Instant::now();
    for _ in 0..10 { for p in &all { let _ = globset::GlobBuilder::new(p).literal_separator(true).build().unwrap(); } }
    println!("glob parse only {:?}", t.elapsed() / 10);
    let t = std::time::Instant::now();
    for _ in 0..10 { let _: toml::Table = toml::from_str(text).unwrap(); }
    println!("toml {:?}", t.elapsed() / 10);
    let t = std::time::Instant::now();
    let n = 10;
    for _ in 0..n { let _ = shellgate_rules::Policy::embedded_default(); }
    println!("{:?} per load", t.elapsed() / n);
}
