// The badge renderer against the packages it replaces (dev dependencies only, never bundled):
// anafanafo's Verdana 11px table for every character, badge-maker for every badge the service can draw.
import anafanafo from "anafanafo";
import { makeBadge } from "badge-maker";
import { describe, expect, it } from "vitest";
import { BADGE_COLOURS, badgeSvg, textWidth, VERDANA_11PX, type BadgeColour } from "../../src/http/wire/badge-svg";

const FONT = { font: "11px Verdana" };
const RECOMMENDATION_COLOURS: [string, BadgeColour][] = [["clear", "green"], ["review", "yellow"], ["caution", "red"]];

/** Every face the badge route can render: each score with each recommendation, and `unknown`. */
const faces: [string, BadgeColour][] = [["unknown", "lightgrey"]];
for (let score = 0; score <= 1000; score++) {
  for (const [recommendation, colour] of RECOMMENDATION_COLOURS) faces.push([`${score} · ${recommendation}`, colour]);
}

describe("badge text widths", () => {
  it("match anafanafo's Verdana 11px width of every character in the table", () => {
    for (const [char, width] of Object.entries(VERDANA_11PX)) {
      expect(anafanafo(char, { ...FONT, guess: false }), char).toBe(width);
    }
  });

  it("cover every character of the label and of every message", () => {
    const used = new Set([..."trust", ...faces.flatMap(([message]) => [...message])]);
    expect([...used].filter((char) => !(char in VERDANA_11PX))).toEqual([]);
  });

  it("round like badge-maker: truncated, then up to an odd number", () => {
    for (const text of ["trust", ...faces.map(([message]) => message)]) {
      const truncated = anafanafo(text, FONT) | 0;
      expect(textWidth(text), text).toBe(truncated % 2 === 0 ? truncated + 1 : truncated);
    }
  });

  it("refuse a character outside the table instead of guessing", () => {
    expect(() => textWidth("trust <b>")).toThrow(/no Verdana width/);
  });
});

describe("badgeSvg", () => {
  it("is byte for byte badge-maker's flat badge, for every face the service can draw", () => {
    for (const [message, colour] of faces) {
      expect(badgeSvg("trust", message, colour), message).toBe(makeBadge({ label: "trust", message, color: colour, style: "flat" }));
    }
  });

  it("paints badge-maker's named colours", () => {
    for (const [name, hex] of Object.entries(BADGE_COLOURS)) {
      expect(badgeSvg("trust", "unknown", name as BadgeColour)).toContain(`fill="${hex}"`);
      expect(makeBadge({ label: "trust", message: "unknown", color: name, style: "flat" })).toContain(`fill="${hex}"`);
    }
  });
});
