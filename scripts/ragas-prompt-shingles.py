"""Ragas's prompt texts as 10-word shingle hashes (never the text itself), for
__test__/prompt-originality.spec.ts: `python3 scripts/ragas-prompt-shingles.py <ragas wheel>`
writes __test__/fixtures/ragas-prompt-shingles.json. The wheel: `pip download ragas==0.4.3
--no-deps`. Texts: every string literal (f-strings' literal parts included) of the wheel's
ragas/metrics/** and ragas/prompt/** modules. Words: lower-cased runs of letters and digits, as
helpers/prompt-text.ts; a hash: the first 12 hex digits of the shingle's SHA-256 (words joined
by one space)."""
import ast, hashlib, json, re, sys, zipfile

N = 10
WORD = re.compile(r"[^\W_]+")


def literals(src):
    out = []
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node.value)
    return out


def main(wheel, dest="__test__/fixtures/ragas-prompt-shingles.json"):
    hashes = set()
    files = 0
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            if not name.endswith(".py") or not name.startswith(("ragas/metrics/", "ragas/prompt/")):
                continue
            files += 1
            for text in literals(z.read(name).decode("utf-8")):
                w = WORD.findall(text.lower())
                for i in range(len(w) - N + 1):
                    hashes.add(hashlib.sha256(" ".join(w[i : i + N]).encode()).hexdigest()[:12])
    with open(dest, "w") as f:
        json.dump({"source": wheel.split("/")[-1], "files": files, "n": N, "hashes": sorted(hashes)}, f, separators=(",", ":"))
        f.write("\n")
    print(f"{files} files, {len(hashes)} shingles -> {dest}")


if __name__ == "__main__":
    main(*sys.argv[1:])
