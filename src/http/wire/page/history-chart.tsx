// The score history as an inline SVG chart (no script, no external asset), with its text
// alternative: a title and a description for assistive technology, and the data as a table.
// The plot stretches to the page's width (its lines keep their thickness); the axis labels are
// HTML beside it, so they keep their size on a phone and on a desktop alike.
import { COLOURS } from "./style";
import type { HistoryPoint } from "./view";
import { whenWords } from "./words";

/** The plot's own units: 0-1000 across (time) and 1000-0 down (the composite), stretched to fit. */
const SPAN = 1000;
const GRID = [1000, 750, 500, 250, 0];

const y = (composite: number) => SPAN - composite;
const round = (n: number) => Math.round(n * 10) / 10;

/** The horizontal position of each point: by time, or spread evenly when they share one instant. */
function xs(points: HistoryPoint[]): number[] {
  const times = points.map((p) => Date.parse(p.at));
  const first = Math.min(...times);
  const span = Math.max(...times) - first;
  if (span === 0) return points.map((_, i) => (points.length === 1 ? SPAN / 2 : (i / (points.length - 1)) * SPAN));
  return times.map((t) => ((t - first) / span) * SPAN);
}

/** A step line: the score holds from one entry until the next changes it. */
function stepPath(px: number[], points: HistoryPoint[]): string {
  return points.map((p, i) => (i === 0 ? `M${round(px[0])} ${y(p.composite)}` : `H${round(px[i])}V${y(p.composite)}`)).join("");
}

/** The date at an end of the time axis; with the time too when both ends fall on one day. */
const axisLabel = (at: string, other: string) => (at.slice(0, 10) === other.slice(0, 10) ? whenWords(at) : at.slice(0, 10));

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
      <div class="chart">
        <div class="y-axis" aria-hidden="true">
          {GRID.map((g) => (
            <span>{g}</span>
          ))}
        </div>
        <svg class="plot" viewBox={`0 0 ${SPAN} ${SPAN}`} preserveAspectRatio="none" role="img" aria-labelledby="history-title history-desc">
          <title id="history-title">Composite score over time</title>
          <desc id="history-desc">{historySummary(points, fromStart)}</desc>
          <path d={GRID.map((g) => `M0 ${y(g)}H${SPAN}`).join("")} stroke={COLOURS.rule} stroke-width="1" vector-effect="non-scaling-stroke" />
          <path d={stepPath(px, points)} fill="none" stroke={COLOURS.plot} stroke-width="2.5" stroke-linejoin="round" vector-effect="non-scaling-stroke" />
          {/* Each entry a dot: a zero-length line with round ends stays round however the plot stretches. */}
          {points.map((p, i) => (
            <path
              class="point"
              d={`M${round(px[i])} ${y(p.composite)}h0`}
              stroke={COLOURS.plot}
              stroke-width={i === points.length - 1 ? 10 : 6}
              stroke-linecap="round"
              vector-effect="non-scaling-stroke"
            />
          ))}
        </svg>
        <div class="x-axis" aria-hidden="true">
          <span>{axisLabel(points[0].at, points[points.length - 1].at)}</span>
          <span>{axisLabel(points[points.length - 1].at, points[0].at)}</span>
        </div>
      </div>
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
