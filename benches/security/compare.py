#!/usr/bin/env python3
"""skillpub's security review side by side with Cisco's skill scanner (cisco-ai-skill-scanner
2.3.2, its static analyzers: no LLM, no cloud), on the same skill folders: findings per family,
false positives, and time.

Two sets of folders:

* the corpus of `crates/skillpub-advice/tests/security_corpus/` (`first.rs`, the cases the
  rules were written with; `second.rs`, cases written without reading them), unsafe skills and
  safe-but-suspicious ones, each with the codes it must and must not get; write it with
  `SKILLPUB_SECURITY_CORPUS=DIR cargo test -p skillpub-advice --test security_corpus`;
* real public skill folders, one path per line in a list (`--corpus`), for the share of skills
  with any finding and the time. Every finding of skillpub on them is judged by hand in
  `benches/security/findings.md`; Cisco's are counted, and a seeded sample of them printed
  for judging (`--sample`).

    python3 -m venv venv && venv/bin/pip install cisco-ai-skill-scanner==2.3.2
    cargo build --release -p skillpub-cli
    SKILLPUB_SECURITY_CORPUS=/tmp/cases cargo test -p skillpub-advice --test security_corpus
    python3 benches/security/compare.py --skillpub target/release/skillpub \\
        --cisco venv/bin/skill-scanner --cases /tmp/cases --corpus dirs.txt

Cisco's scanner is run once per set (`scan-all --recursive`): its Python start-up, about 13 s
here, is paid once, and the time compared is both its wall time and the sum of the scan times
it reports per skill. skillpub's is the wall time of one `skillpub lint` over the same folders,
the least of three runs (it validates every skill and gives the authoring advice too).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict

FAMILIES = ["secret", "hidden-text", "injection", "exfiltration", "script", "obfuscation"]


def skillpub_family(code, message=""):
    """The family of a skillpub code, or None for a code outside the security review. Before
    `security.obfuscation` (skillpub 0.1 of the first pass, `--skillpub` of an older build),
    decoded code and base64 blobs were `security.script` findings: they count as obfuscation."""
    if not code.startswith("security."):
        return None
    family = code[len("security."):]
    if family == "script" and ("decodes" in message or "base64 blob" in message):
        return "obfuscation"
    return family


# Cisco's rules about what the security review does not look for, whatever their category:
# the layout of the folder (hidden, binary and mistyped files, nesting), its declarations
# (allowed-tools, network destinations, how vague its description is), and its policy.
NOT_REVIEWED = ("FILE_MAGIC_MISMATCH", "HIDDEN_DATA_FILE", "HIDDEN_EXECUTABLE_SCRIPT", "CORRELATED_HIDDEN_EXECUTABLE",
                "BYTECODE_ANALYSIS_UNAVAILABLE", "LAZY_LOAD_DEEP_NESTING", "OBFUSCATION_BINARY_FILE",
                "UNDECLARED_NETWORK_DESTINATION", "TOOL_ABUSE_UNDECLARED_NETWORK", "SOCIAL_ENG_MISLEADING_DESC",
                "SOCIAL_ENG_VAGUE_DESCRIPTION")


def cisco_family(finding):
    """The family of a Cisco finding, by its category and rule: None for what the security
    review does not look for (manifest, file size, binaries, allowed-tools, ...)."""
    category = (finding.get("category") or "").lower()
    rule = (finding.get("rule_id") or "").upper()
    if category == "policy_violation" or rule in NOT_REVIEWED or rule.startswith("ALLOWED_TOOLS_"):
        return None
    if any(mark in rule for mark in ("UNICODE", "STEGANOGRAPHY", "SMUGGLING", "HIDDEN_HTML", "HOMOGLYPH", "INVISIBLE", "ZERO_WIDTH", "BIDI")):
        return "hidden-text"
    if category == "hardcoded_secrets" or rule.startswith("SECRET_"):
        return "secret"
    if category in ("prompt_injection", "social_engineering"):
        return "injection"
    if category == "data_exfiltration":
        return "exfiltration"
    if category == "obfuscation" or rule.startswith("OBFUSCATION_"):
        return "obfuscation"
    if category in ("command_injection", "resource_abuse", "unauthorized_tool_use", "supply_chain", "malware", "system_manipulation"):
        return "script"
    return None


def run_skillpub(binary, folders):
    """skillpub lint over the folders, the least wall time of three runs, and its report."""
    times = []
    report = None
    for _ in range(3):
        started = time.perf_counter()
        out = subprocess.run([binary, "lint", "--allow-unknown-fields", "--format", "json", *folders],
                             capture_output=True, text=True, check=False)
        times.append(time.perf_counter() - started)
        report = json.loads(out.stdout)
    findings = []
    for item in report["problems"] + report["advice"]:
        family = skillpub_family(item["code"], item.get("message", ""))
        if family:
            findings.append({"family": family, "file": item["file"], "line": item.get("line"), "code": item["code"], "message": item["message"]})
    return min(times), times, findings


def run_cisco(binary, root, json_path=None):
    """Cisco's scan-all over the folders under root, its wall time, and its results."""
    wall = None
    if json_path is None or not os.path.exists(json_path):
        json_path = json_path or tempfile.mktemp(suffix=".json")
        started = time.perf_counter()
        subprocess.run([binary, "scan-all", root, "--recursive", "--format", "json", "--output-json", json_path],
                       capture_output=True, text=True, check=False)
        wall = time.perf_counter() - started
    with open(json_path) as file:
        results = json.load(file)["results"]
    return wall, results


def folder_of(path, folders):
    """The longest folder of `folders` that holds `path`."""
    best = None
    for folder in folders:
        if path == folder or path.startswith(folder.rstrip("/") + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def cases(args):
    with open(os.path.join(args.cases, "cases.json")) as file:
        table = json.load(file)
    folders = [os.path.join(args.cases, case["name"]) for case in table]
    wall, times, findings = run_skillpub(args.skillpub, folders)
    ours = defaultdict(set)
    for finding in findings:
        ours[os.path.basename(folder_of(finding["file"], folders))].add(finding["family"])
    cisco_wall, results = run_cisco(args.cisco, args.cases, args.cisco_cases_json)
    theirs = defaultdict(set)
    cisco_scan = 0.0
    for result in results:
        cisco_scan += result.get("scan_duration_seconds") or 0.0
        name = os.path.basename(result["skill_path"].rstrip("/"))
        for finding in result["findings"]:
            family = cisco_family(finding)
            if family:
                theirs[name].add(family)
    print(f"## The corpus of {len(table)} cases ({sum(not c['safe'] for c in table)} unsafe, {sum(c['safe'] for c in table)} safe)\n")
    print("| Family | Unsafe cases | skillpub finds (recall) | Cisco finds (recall) | Safe cases flagged by skillpub | by Cisco |")
    print("|---|---|---|---|---|---|")
    safe = [c for c in table if c["safe"]]
    recall = lambda found, total: f"{found} ({found / total:.2f})" if total else "0"
    for family in FAMILIES:
        code = "security." + family
        unsafe = [c for c in table if code in c["must"]]
        print(f"| {family} | {len(unsafe)} | {recall(sum(family in ours[c['name']] for c in unsafe), len(unsafe))} | "
              f"{recall(sum(family in theirs[c['name']] for c in unsafe), len(unsafe))} | "
              f"{sum(family in ours[c['name']] for c in safe)} | {sum(family in theirs[c['name']] for c in safe)} |")
    unsafe = [c for c in table if not c["safe"]]
    ours_whole = sum(all(f[len("security."):] in ours[c["name"]] for f in c["must"]) for c in unsafe)
    theirs_whole = sum(all(f[len("security."):] in theirs[c["name"]] for f in c["must"]) for c in unsafe)
    print(f"| all unsafe (every family a case must get) | {len(unsafe)} | {recall(ours_whole, len(unsafe))} | {recall(theirs_whole, len(unsafe))} | | |")
    flagged_ours = sum(bool(ours[c["name"]]) for c in safe)
    flagged_theirs = sum(bool(theirs[c["name"]]) for c in safe)
    print(f"\nSafe cases with any finding: skillpub {flagged_ours} of {len(safe)}, Cisco {flagged_theirs} of {len(safe)}.")
    for c in table:
        print(f"  {c['name']}: expected {sorted(f[len('security.'):] for f in c['must']) or '-'}; skillpub {sorted(ours[c['name']]) or '-'}; Cisco {sorted(theirs[c['name']]) or '-'}")
    print(f"\nTime: skillpub {wall * 1000:.0f} ms (runs: {', '.join(f'{t * 1000:.0f}' for t in times)} ms); "
          f"Cisco {cisco_scan:.2f} s of scans it reports" + (f", {cisco_wall:.1f} s wall" if cisco_wall else "") + "\n")


def corpus(args):
    with open(args.corpus) as file:
        folders = [line.strip() for line in file if line.strip()]
    root = args.corpus_root
    folders = [os.path.join(root, folder) for folder in folders]
    wall, times, findings = run_skillpub(args.skillpub, folders)
    lint = subprocess.run([args.skillpub, "lint", "--allow-unknown-fields", "--format", "json", *folders],
                          capture_output=True, text=True, check=False)
    report = json.loads(lint.stdout)
    failed = {folder_of(p["file"], folders) for p in report["problems"]
              if p["file"].endswith("SKILL.md") and not p["code"].startswith("security.")}
    reviewed = [f for f in folders if f not in failed]
    flagged = {folder_of(f["file"], folders) for f in findings}
    composio = lambda folder: "ComposioHQ__" in folder
    print(f"## {len(folders)} public skill folders\n")
    print(f"skillpub: {len(reviewed)} skills reviewed (the others fail the specification's rules), "
          f"{len(flagged)} with any security finding ({100 * len(flagged) / len(reviewed):.2f} %); "
          f"without the {sum(map(composio, reviewed))} generated ComposioHQ skills, "
          f"{sum(not composio(f) for f in flagged)} of {sum(not composio(f) for f in reviewed)} "
          f"({100 * sum(not composio(f) for f in flagged) / sum(not composio(f) for f in reviewed):.2f} %).")
    print("skillpub findings per family: " + ", ".join(f"{k} {v}" for k, v in sorted(Counter(f['family'] for f in findings).items())))
    cisco_wall, results = run_cisco(args.cisco, os.path.commonpath(folders), args.cisco_json)
    per_family = Counter()
    skills_flagged = set()
    skills_by_family = defaultdict(set)
    cisco_scan = 0.0
    sample_pool = []
    for result in results:
        cisco_scan += result.get("scan_duration_seconds") or 0.0
        path = result["skill_path"].rstrip("/")
        any_family = False
        for finding in result["findings"]:
            family = cisco_family(finding)
            if family:
                per_family[family] += 1
                skills_by_family[family].add(path)
                any_family = True
                sample_pool.append((family, path, finding))
        if result["findings"]:
            skills_flagged.add(path)
        if any_family:
            skills_by_family["any"].add(path)
    scanned = len(results)
    print(f"\nCisco: {scanned} skills scanned, {len(skills_flagged)} with any finding ({100 * len(skills_flagged) / scanned:.2f} %), "
          f"{len(skills_by_family['any'])} with a finding of the review's families ({100 * len(skills_by_family['any']) / scanned:.2f} %); "
          f"without ComposioHQ: {sum(not composio(s) for s in skills_by_family['any'])} of {sum(not composio(r['skill_path']) for r in results)}.")
    cisco_any = {os.path.normpath(s) for s in skills_by_family["any"]}
    ours_any = {os.path.normpath(f) for f in flagged}
    same = [os.path.normpath(f) for f in reviewed]
    print(f"On the {len(same)} skills skillpub reviews: Cisco flags {sum(f in cisco_any for f in same)} "
          f"({100 * sum(f in cisco_any for f in same) / len(same):.2f} %), without ComposioHQ "
          f"{sum(f in cisco_any and not composio(f) for f in same)}; of skillpub's {len(ours_any)}, Cisco flags "
          f"{len(ours_any & cisco_any)} too.")
    print("Cisco findings per family: " + ", ".join(f"{k} {v} ({len(skills_by_family[k])} skills)" for k, v in sorted(per_family.items())))
    print("Cisco findings by rule: " + ", ".join(f"{k} {v}" for k, v in Counter(f[2].get('rule_id') for f in sample_pool).most_common(25)))
    print(f"\nTime: skillpub {wall:.2f} s (runs: {', '.join(f'{t:.2f}' for t in times)} s) for {len(folders)} folders; "
          f"Cisco {cisco_scan:.1f} s of scans it reports" + (f", {cisco_wall:.1f} s wall" if cisco_wall else "") +
          f"; ratio {cisco_scan / wall:.0f}x on the scans alone")
    if args.sample:
        rng = random.Random(21)
        print(f"\nA seeded sample of {args.sample} Cisco findings of the review's families, to judge:")
        for family, path, finding in rng.sample(sample_pool, min(args.sample, len(sample_pool))):
            snippet = (finding.get("snippet") or "").replace("\n", " ")[:160]
            print(f"- {family} {finding.get('rule_id')} {path.replace(root, '')}/{finding.get('file_path')}:{finding.get('line_number')}: {snippet}")
    if args.list:
        print("\nEvery skillpub finding:")
        for finding in findings:
            print(f"- {finding['code']} {finding['file'].replace(root, '')}:{finding['line']}: {finding['message'][:160]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--skillpub", required=True, help="the skillpub binary (release build)")
    parser.add_argument("--cisco", required=True, help="Cisco's skill-scanner")
    parser.add_argument("--cases", help="the folder written by the corpus test")
    parser.add_argument("--cisco-cases-json", help="an earlier scan-all JSON of the cases, instead of scanning again")
    parser.add_argument("--corpus", help="a list of public skill folders, one a line")
    parser.add_argument("--corpus-root", default="/", help="what the folders of --corpus are relative to")
    parser.add_argument("--cisco-json", help="an earlier scan-all JSON of --corpus-root, instead of scanning again")
    parser.add_argument("--sample", type=int, default=0, help="print this many Cisco findings, seeded, to judge")
    parser.add_argument("--list", action="store_true", help="print every skillpub finding on the corpus")
    args = parser.parse_args()
    if args.cases:
        cases(args)
    if args.corpus:
        corpus(args)
    if not (args.cases or args.corpus):
        sys.exit("give --cases, --corpus, or both")


if __name__ == "__main__":
    main()
