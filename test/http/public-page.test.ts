// The public page's pure parts: which Accept headers get HTML, the colours' contrast, the chart's
// text alternative.
import { describe, expect, it } from "vitest";
import { prefersHtml } from "../../src/http/negotiation";
import { historySummary } from "../../src/http/wire/page/history-chart";
import { TEXT_ON_BACKGROUND } from "../../src/http/wire/page/style";

describe("prefersHtml", () => {
  it("is true only when the client names text/html (or XHTML) and ranks it above application/json", () => {
    const cases: [string | undefined, boolean][] = [
      ["text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8", true], // Chromium, Firefox
      ["text/html", true],
      ["TEXT/HTML; charset=utf-8", true],
      ["application/xhtml+xml", true],
      ["application/json;q=0.9, text/html", true],
      [undefined, false],
      ["", false],
      ["*/*", false],
      ["text/*", false],
      ["application/json", false],
      ["application/json, text/html", false], // a tie keeps JSON
      ["text/html;q=0.5, application/json", false],
      ["text/html;q=0", false],
      ["text/html;q=abc", false],
    ];
    for (const [accept, expected] of cases) expect(prefersHtml(accept), String(accept)).toBe(expected);
  });
});

/** WCAG 2 contrast ratio of two #rrggbb colours. */
function contrast(a: string, b: string): number {
  const luminance = (hex: string) => {
    const [r, g, bl] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe("the page's colours", () => {
  it("give every text at least 4.5:1 against its background (WCAG AA)", () => {
    expect(contrast("#000000", "#ffffff")).toBeCloseTo(21, 5);
    for (const [text, background] of TEXT_ON_BACKGROUND) expect(contrast(text, background), `${text} on ${background}`).toBeGreaterThanOrEqual(4.5);
  });
});

describe("the history chart's description", () => {
  it("says where the score started, where it is, its lowest and highest, and whether older entries are left out", () => {
    const points = [
      { at: "2026-10-01T09:00:00.000Z", composite: 500, what: "Registered" },
      { at: "2026-10-02T09:00:00.000Z", composite: 430, what: "A report: failure" },
      { at: "2026-10-05T09:00:00.000Z", composite: 640, what: "A report: success" },
      { at: "2026-11-21T10:20:30.000Z", composite: 612, what: "Now" },
    ];
    expect(historySummary(points, true)).toBe(
      "The composite score from 2026-10-01 09:00 UTC to 2026-11-21 10:20 UTC, 2 recorded changes: it started at 500 and is now 612; " +
        "lowest 430 (2026-10-02 09:00 UTC), highest 640 (2026-10-05 09:00 UTC).",
    );
    expect(historySummary(points.slice(1), false)).toMatch(/, 2 recorded changes \(the newest ones\): it was at 430 and is now 612;/);
  });
});
