// The score history as an inline SVG chart (no script, no external asset), with its text
// alternative: a title and a description for assistive technology, and the data as a table.
import { COLOURS } from "./style";
import type { HistoryPoint } from "./view";
import { whenWords } from "./words";

const WIDTH = 600;
const HEIGHT = 260;
const LEFT = 48;
const RIGHT = 12;
const TOP = 14;
const BOTTOM = 36;
const GRID = [0, 250, 500, 750, 1000];

const x0 = LEFT;
const x1 = WIDTH - RIGHT;
const y = (composite: number) => TOP + ((1000 - composite) / 1000) * (HEIGHT - TOP - BOTTOM);
const round = (n: number) => Math.round(n * 10) / 10;

/** The horizontal position of each point: by time, or spread evenly when they share one instant. */
function xs(points: HistoryPoint[]): number[] {
  const times = points.map((p) => Date.parse(p.at));
  const first = Math.min(...times);
  const span = Math.max(...times) - first;
  if (span === 0) return points.map((_, i) => (points.length === 1 ? (x0 + x1) / 2 : x0 + (i / (points.length - 1)) * (x1 - x0)));
  return times.map((t) => x0 + ((t - first) / span) * (x1 - x0));
}

/** A step line: the score holds from one entry until the next changes it. */
function stepPath(px: number[], points: HistoryPoint[]): string {
  return points.map((p, i) => (i === 0 ? `M${round(px[0])} ${round(y(p.composite))}` : `H${round(px[i])}V${round(y(p.composite))}`)).join("");
}

/** One sentence that says what the chart shows. */
export function historySummary(points: HistoryPoint[], fromStart: boolean): string {
  const first = points[0];
  const last = points[points.length - 1];
  const low = points.reduce((a, p) => (p.composite < a.composite ? p : a));
  const high = points.reduce((a, p) => (p.composite > a.composite ? p : a));
  const changes = points.length - (fromStart ? 2 : 1);
  return (
    `The composite score from ${whenWords(first.at)} to ${whenWords(last.at)}, ${changes} recorded ${changes === 1 ? "change" : "changes"}` +
    `${fromStart ? "" : " (the newest ones)"}: it ${fromStart ? "started" : "was"} at ${first.composite} and is now ${last.composite}; ` +
    `lowest ${low.composite} (${whenWords(low.at)}), highest ${high.composite} (${whenWords(high.at)}).`
  );
}

export function HistoryChart(props: { points: HistoryPoint[]; fromStart: boolean }) {
  const { points, fromStart } = props;
  const px = xs(points);
  return (
    <figure>
      <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="history-title history-desc">
        <title id="history-title">Composite score over time</title>
        <desc id="history-desc">{historySummary(points, fromStart)}</desc>
        <g font-family="system-ui,sans-serif" font-size="13" fill={COLOURS.muted}>
          {GRID.map((g) => (
            <g>
              <line x1={x0} x2={x1} y1={y(g)} y2={y(g)} stroke={COLOURS.rule} stroke-width="1" />
              <text x={x0 - 8} y={y(g) + 4} text-anchor="end">
                {g}
              </text>
            </g>
          ))}
          <text x={x0} y={HEIGHT - 10} text-anchor="start">
            {points[0].at.slice(0, 10)}
          </text>
          <text x={x1} y={HEIGHT - 10} text-anchor="end">
            {points[points.length - 1].at.slice(0, 10)}
          </text>
        </g>
        <path d={stepPath(px, points)} fill="none" stroke={COLOURS.plot} stroke-width="2.5" stroke-linejoin="round" />
        {points.map((p, i) => (
          <circle cx={round(px[i])} cy={round(y(p.composite))} r={i === points.length - 1 ? 5 : 3} fill={COLOURS.plot} />
        ))}
      </svg>
      <details>
        <summary>The data behind the chart ({points.length} points)</summary>
        <div class="wide">
          <table>
            <caption>Score history, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What happened</th>
                <th scope="col" class="num">
                  Composite
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr>
                  <td>
                    <time datetime={p.at}>{whenWords(p.at)}</time>
                  </td>
                  <td>{p.what}</td>
                  <td class="num">{p.composite}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
