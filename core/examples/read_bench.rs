//! Reading speed, in ns per line: `cargo run --release -p trecgain-core --example read_bench [FILE...]`.
//! Without files, reads generated 1M-line runs (tab separated with 17-digit scores, and BM25-like).

use std::time::Instant;

use trecgain_core::read::{read_qrels_path, read_run_path};

fn generate(dir: &std::path::Path) -> Vec<String> {
    let lines = 1_000_000usize;
    let mut run = Vec::with_capacity(lines * 64);
    let mut bm25 = Vec::with_capacity(lines * 40);
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    for i in 0..lines {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let q = 300 + i / 1000;
        let score = f64::from_bits((x >> 12) | 0x402e_0000_0000_0000) as f32 as f64;
        run.extend_from_slice(
            format!(
                "{q}\tQ0\tclueweb09-en{:04}-{:02}-{:05}\t{}\t{score:?}\trunname\n",
                x % 10000,
                (x >> 20) % 100,
                (x >> 30) % 100000,
                i % 1000 + 1
            )
            .as_bytes(),
        );
        bm25.extend_from_slice(
            format!(
                "{q} Q0 {:07} {} {:.4} bm25\n",
                (x >> 8) % 8_000_000,
                i % 1000 + 1,
                (x % 300_000) as f64 / 1e4
            )
            .as_bytes(),
        );
    }
    std::fs::create_dir_all(dir).unwrap();
    let a = dir.join("run17.txt");
    let b = dir.join("bm25.txt");
    std::fs::write(&a, run).unwrap();
    std::fs::write(&b, bm25).unwrap();
    vec![a.to_str().unwrap().into(), b.to_str().unwrap().into()]
}

fn main() {
    let mut files: Vec<String> = std::env::args().skip(1).collect();
    let qrels = files.first().is_some_and(|f| f == "--qrels");
    if qrels {
        files.remove(0);
    }
    if files.is_empty() {
        files = generate(&std::env::temp_dir().join("trecgain-read-bench"));
    }
    let repeat: usize = std::env::var("REPEAT")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(9);
    for file in &files {
        let mut times = Vec::new();
        let mut lines = 0;
        for _ in 0..repeat {
            let t = Instant::now();
            lines = if qrels {
                read_qrels_path(file, false).unwrap().grades.len()
            } else {
                read_run_path(file, false).unwrap().scores.len()
            };
            times.push(t.elapsed().as_nanos() as f64 / lines as f64);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{file}: {lines} lines, median {:.1} ns/line, best {:.1}",
            times[times.len() / 2],
            times[0]
        );
    }
}
