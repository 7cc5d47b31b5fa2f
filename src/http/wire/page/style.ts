// The public pages' one style sheet, inline (the pages load nothing), and the colours it uses. Every
// text colour is listed with the background it sits on in TEXT_ON_BACKGROUND, which a test holds to
// WCAG's 4.5:1; the browser test measures the rendered page as well.

export const COLOURS = {
  text: "#1b1f24",
  muted: "#4a5360",
  link: "#0b57d0",
  page: "#ffffff",
  code: "#f3f4f6",
  rule: "#d8dce2",
  clear: "#1a7f37",
  review: "#ffd33d",
  caution: "#b42318",
  notice: "#fdecea",
  onDark: "#ffffff",
  /** The chart's line and the dimension bars: graphics, which need 3:1 against the page. */
  plot: "#1f4e99",
  track: "#e5e7eb",
} as const;

/** [text, background] pairs the style sheet puts together. */
export const TEXT_ON_BACKGROUND: [string, string][] = [
  [COLOURS.text, COLOURS.page],
  [COLOURS.muted, COLOURS.page],
  [COLOURS.link, COLOURS.page],
  [COLOURS.text, COLOURS.code],
  [COLOURS.muted, COLOURS.code],
  [COLOURS.onDark, COLOURS.clear],
  [COLOURS.text, COLOURS.review],
  [COLOURS.onDark, COLOURS.caution],
  [COLOURS.text, COLOURS.notice],
];

const c = COLOURS;
const MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace";

export const STYLE = [
  "*{box-sizing:border-box}",
  `html{color-scheme:light;background:${c.page}}`,
  `body{margin:0;font:16px/1.5 system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,sans-serif;color:${c.text};background:${c.page}}`,
  "main{max-width:46rem;margin:0 auto;padding:1.5rem 1rem 3rem}",
  "h1{font-size:1.75rem;line-height:1.2;margin:.25rem 0 .5rem;overflow-wrap:anywhere}",
  `h2{font-size:1.3rem;line-height:1.3;margin:2rem 0 .5rem;padding-top:1rem;border-top:1px solid ${c.rule}}`,
  "h3{font-size:1.05rem;margin:1.25rem 0 .25rem}",
  "p,ul,ol{margin:.5rem 0}",
  `a{color:${c.link}}`,
  `.kicker{margin:0;color:${c.muted};font-size:.875rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase}`,
  `.muted{color:${c.muted}}`,
  `.sid{margin:0 0 .75rem;font-family:${MONO};color:${c.muted};overflow-wrap:anywhere}`,
  `code{font-family:${MONO};font-size:.9em}`,
  `pre{margin:.5rem 0;padding:.75rem;background:${c.code};border:1px solid ${c.rule};border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere;font:.85rem/1.45 ${MONO}}`,
  "pre.copy{user-select:all}",
  ".score{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;margin:.5rem 0}",
  ".composite{font-size:2.5rem;font-weight:700;line-height:1}",
  ".composite small{font-size:1rem;font-weight:400}",
  ".chip{display:inline-block;padding:.15rem .7rem;border-radius:999px;font-weight:700}",
  `.chip-clear{background:${c.clear};color:${c.onDark}}`,
  `.chip-review{background:${c.review};color:${c.text}}`,
  `.chip-caution{background:${c.caution};color:${c.onDark}}`,
  ".facts{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem;margin:1rem 0}",
  ".facts dt{font-weight:600}",
  ".facts dd{margin:0}",
  "@media (max-width:32rem){.facts{grid-template-columns:1fr;gap:0}.facts dd{margin-bottom:.6rem}}",
  `.notice{margin:1rem 0;padding:.75rem 1rem;border-left:4px solid ${c.caution};background:${c.notice}}`,
  "table{width:100%;border-collapse:collapse;font-size:.9rem}",
  "caption{text-align:left;font-weight:600;padding:.25rem 0}",
  `th,td{padding:.4rem .5rem;border-bottom:1px solid ${c.rule};text-align:left;vertical-align:top}`,
  ".num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}",
  ".bar-cell{width:40%}",
  ".bar{display:block;width:100%;min-width:3rem;height:.75rem;margin-top:.35rem}",
  "@media (max-width:32rem){.bar-cell{width:25%}}",
  "figure{margin:.5rem 0}",
  // The chart: labels on a 1rem line beside a 12.5rem plot inset by half a line, so each label sits
  // on its grid line (1000 at the top, 0 at the bottom).
  ".chart{display:grid;grid-template-columns:max-content 1fr;column-gap:.5rem;margin:.5rem 0}",
  `.y-axis{display:flex;flex-direction:column;justify-content:space-between;height:13.5rem;color:${c.muted};font-size:.8125rem;line-height:1rem;text-align:right;font-variant-numeric:tabular-nums}`,
  ".plot{display:block;width:100%;height:12.5rem;margin:.5rem 0;overflow:visible}",
  `.x-axis{grid-column:2;display:flex;justify-content:space-between;gap:.75rem;color:${c.muted};font-size:.8125rem}`,
  ".dimension{font-weight:400;font-size:.875rem}",
  ".wide{overflow-x:auto}",
  "details{margin:.5rem 0}",
  `summary{cursor:pointer;color:${c.link}}`,
  ".disputes li{margin:.75rem 0}",
  `footer{margin-top:2.5rem;padding-top:1rem;border-top:1px solid ${c.rule};color:${c.muted};font-size:.9rem}`,
].join("\n");
