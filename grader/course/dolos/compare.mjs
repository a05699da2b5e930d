// Compares source files with Dolos's library and prints the pairs as JSON (grader/course/similarity.py
// calls it; grader/deps.sh installs the library under SCANLAB_DOLOS, pinned by package-lock.json).
//
//   node compare.mjs --dolos DIR --language c|cpp [--ignore TEMPLATE] FILE...
//   node compare.mjs --dolos DIR --check      (the library and its C and C++ parsers load)
//
// Output: {"files": [path...], "pairs": [{"left", "right", "similarity", "longest", "overlap",
// "cover": {"left": [shared, of], "right": [shared, of]},
// "fragments": [{"left": [firstRow, lastRow], "right": [firstRow, lastRow]}]}]}, rows from 0.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";

const argv = process.argv.slice(2);
let dolosDir = null, language = "c", ignore = undefined, check = false;
const files = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === "--dolos") dolosDir = argv[++i];
  else if (argv[i] === "--language") language = argv[++i];
  else if (argv[i] === "--ignore") ignore = argv[++i];
  else if (argv[i] === "--check") check = true;
  else files.push(argv[i]);
}
if (!dolosDir) {
  console.error("compare.mjs: --dolos DIR (where grader/deps.sh installed the library) is required");
  process.exit(2);
}
const lib = join(dolosDir, "node_modules", "@dodona", "dolos-lib", "dist", "index.js");
let Dolos;
try {
  ({ Dolos } = await import(pathToFileURL(lib).href));
} catch (e) {
  console.error(`compare.mjs: cannot load Dolos from ${lib}: ${e.message} (run grader/deps.sh similarity)`);
  process.exit(3);
}

if (check) {
  // Two small files per language, one a renamed copy of the other: they must match.
  const dir = mkdtempSync(join(tmpdir(), "scanlab-dolos-"));
  try {
    for (const lang of ["c", "cpp"]) {
      const a = join(dir, `a.${lang}`), b = join(dir, `b.${lang}`);
      writeFileSync(a, "int total(const int *v, int n) {\n  int s = 0;\n  for (int i = 0; i < n; i++) s += v[i];\n"
                       + "  return s;\n}\nint twice(int x) { return total(&x, 1) * 2; }\n");
      writeFileSync(b, "int sum(const int *a, int m) {\n  int t = 0;\n  for (int k = 0; k < m; k++) t += a[k];\n"
                       + "  return t;\n}\nint doubled(int y) { return sum(&y, 1) * 2; }\n");
      const report = await new Dolos({ language: lang, kgramLength: 8, kgramsInWindow: 4 }).analyzePaths([a, b]);
      const pairs = report.allPairs();
      if (pairs.length !== 1 || pairs[0].similarity < 0.9) {
        console.error(`compare.mjs: the ${lang} parser does not work (similarity ${pairs[0]?.similarity})`);
        process.exit(4);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log("compare.mjs: Dolos and its C and C++ parsers work");
  process.exit(0);
}

// Student regions are short: k-grams of 12 tokens, a window of 8 (Dolos's defaults, 23 and 17,
// are for whole programs).
const dolos = new Dolos({ language, kgramLength: 12, kgramsInWindow: 8 });
const report = await dolos.analyzePaths(files, ignore);
const out = { files, pairs: [] };
for (const p of report.allPairs()) {
  out.pairs.push({
    left: p.leftFile.path, right: p.rightFile.path, similarity: p.similarity, longest: p.longest,
    overlap: p.overlap,
    // each side's k-grams: those it shares with the other, of all it has less those ignored
    cover: { left: [p.leftCovered, p.leftTotal - p.leftIgnored], right: [p.rightCovered, p.rightTotal - p.rightIgnored] },
    fragments: p.buildFragments().map(f => ({
      left: [f.leftSelection.startRow, f.leftSelection.endRow],
      right: [f.rightSelection.startRow, f.rightSelection.endRow],
    })),
  });
}
process.stdout.write(JSON.stringify(out));
