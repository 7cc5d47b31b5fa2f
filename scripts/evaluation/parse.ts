// The input of `npm run evaluate`: a signed temporal network (`source,target,rating,time`) and its
// labels (`user,label`). UTF-8, `\n` or `\r\n`; a first line whose first field is not an integer is
// a header; blank lines are skipped and not counted; fields are integers except time (decimal
// seconds allowed); ratings are in −10..10; a pair may repeat. A malformed line throws an
// InputError naming its line (1-based, as an editor shows it).

export interface Rating {
  /** 0-based index among the file's counted rating lines. */
  line: number;
  source: number;
  target: number;
  rating: number;
  /** Seconds since the epoch. */
  time: number;
}

export class InputError extends Error {
  constructor(file: string, line: number, what: string) {
    super(`${file}: line ${line}: ${what}`);
    this.name = "InputError";
  }
}

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

function lines(text: string): string[] {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  return body.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

function integer(file: string, n: number, name: string, field: string | undefined): number {
  const f = field?.trim() ?? "";
  if (!INTEGER.test(f)) throw new InputError(file, n, `${name} is not an integer: ${JSON.stringify(field ?? "")}`);
  const v = Number(f);
  if (!Number.isSafeInteger(v)) throw new InputError(file, n, `${name} is out of range: ${f}`);
  return v;
}

export function parseNetwork(text: string, file = "network"): Rating[] {
  const out: Rating[] = [];
  const all = lines(text);
  for (let i = 0; i < all.length; i++) {
    const n = i + 1;
    const raw = all[i];
    if (raw.trim() === "") continue;
    const fields = raw.split(",");
    if (out.length === 0 && i === firstNonBlank(all) && !INTEGER.test(fields[0].trim())) continue;
    if (fields.length !== 4) throw new InputError(file, n, `expected 4 fields (source,target,rating,time), found ${fields.length}`);
    const source = integer(file, n, "source", fields[0]);
    const target = integer(file, n, "target", fields[1]);
    const rating = integer(file, n, "rating", fields[2]);
    if (rating < -10 || rating > 10) throw new InputError(file, n, `rating is outside −10..10: ${rating}`);
    const t = fields[3].trim();
    if (!DECIMAL.test(t)) throw new InputError(file, n, `time is not a number of seconds: ${JSON.stringify(fields[3])}`);
    const time = Number(t);
    if (!Number.isFinite(time) || Math.abs(time) > 8.64e12) throw new InputError(file, n, `time is out of range: ${t}`);
    out.push({ line: out.length, source, target, rating, time });
  }
  return out;
}

function firstNonBlank(all: string[]): number {
  return all.findIndex((l) => l.trim() !== "");
}

/** Labels: `user,label`, label 1 or +1 (benign) or −1 (fraudulent), no header. */
export function parseLabels(text: string, file = "labels"): Map<number, 1 | -1> {
  const out = new Map<number, 1 | -1>();
  const all = lines(text);
  for (let i = 0; i < all.length; i++) {
    const n = i + 1;
    if (all[i].trim() === "") continue;
    const fields = all[i].split(",");
    if (fields.length !== 2) throw new InputError(file, n, `expected 2 fields (user,label), found ${fields.length}`);
    const user = integer(file, n, "user", fields[0]);
    const label = fields[1].trim();
    if (label !== "1" && label !== "+1" && label !== "-1") throw new InputError(file, n, `label is not 1, +1 or -1: ${JSON.stringify(fields[1])}`);
    if (out.has(user)) throw new InputError(file, n, `user ${user} is labelled twice`);
    out.set(user, label === "-1" ? -1 : 1);
  }
  return out;
}
