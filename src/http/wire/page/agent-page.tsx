// The agent's public page (GET /agents/{sid} for a browser): what the public score shows, how to
// verify it without trusting this page, and, when the owner opted in, the reasons, the five
// dimensions, the score history and the open disputes. Everything the agent's owner wrote (its name,
// its dispute statements) is text: JSX escapes it.
import { DIMENSIONS } from "../../../domain/model";
import { BADGE_LABEL, badgeFace, badgeSvg } from "../badge-svg";
import { renderDocument } from "./document";
import { HistoryChart } from "./history-chart";
import { COLOURS } from "./style";
import type { AgentPageView, PublicDispute, PublicFace, PublicProfile } from "./view";
import { CONFIDENCE_WORDS, DIMENSION_WORDS, DISPUTE_STATUS_WORDS, identityWords, REASON_WORDS, RECOMMENDATION_WORDS, whenWords } from "./words";

export function renderAgentPage(view: AgentPageView): string {
  const { face } = view;
  return renderDocument(
    `${face.name}: trust profile`,
    <main>
      <Header face={face} />
      {face.status === "suspended" ? <SuspendedNotice /> : null}
      <Score face={face} />
      {view.profile ? <Profile profile={view.profile} /> : <NotOptedIn view={view} />}
      <Verify view={view} />
      <Embed view={view} />
      <footer>
        <p>
          As of <time datetime={view.asOf}>{whenWords(view.asOf)}</time>; this page may be a minute old. The same figures as JSON:{" "}
          <a href={`${view.origin}/score/${face.sid}/public`}>{`${view.origin}/score/${face.sid}/public`}</a>.
        </p>
      </footer>
    </main>,
  );
}

/** The badge exactly as `/badge/{sid}.svg` draws it, inlined: the page needs no request for it. */
function badgeDataUri(face: PublicFace): { src: string; alt: string; width: number } {
  const { message, color } = badgeFace(face);
  const svg = badgeSvg(BADGE_LABEL, message, color);
  const bytes = new TextEncoder().encode(svg);
  return {
    src: `data:image/svg+xml;base64,${btoa(String.fromCharCode(...bytes))}`,
    alt: `${BADGE_LABEL}: ${message}`,
    width: Number(/width="(\d+)"/.exec(svg)?.[1] ?? 0),
  };
}

function Header(props: { face: PublicFace }) {
  const badge = badgeDataUri(props.face);
  return (
    <header>
      <p class="kicker">Agent trust profile</p>
      <h1>{props.face.name}</h1>
      <p class="sid">{props.face.sid}</p>
      <img src={badge.src} alt={badge.alt} width={badge.width} height="20" />
    </header>
  );
}

function SuspendedNotice() {
  return (
    <div class="notice" role="note">
      <p>
        <strong>Suspended.</strong> The service's administrators suspended this agent: it accepts no reports, and the service issues no attestation for it. The
        figures below are its last ones.
      </p>
    </div>
  );
}

function Score(props: { face: PublicFace }) {
  const { face } = props;
  const recommendation = RECOMMENDATION_WORDS[face.recommendation];
  return (
    <section aria-labelledby="score">
      <h2 id="score">Trust score</h2>
      <div class="score">
        <span class="composite">
          {face.composite}
          <small> / 1000</small>
        </span>
        <span class={`chip chip-${face.recommendation}`}>{recommendation.label}</span>
      </div>
      <p>{recommendation.sentence}</p>
      <dl class="facts">
        <dt>Status</dt>
        <dd>{face.status === "suspended" ? "Suspended by the service's administrators" : "Active"}</dd>
        <dt>Confidence</dt>
        <dd>{CONFIDENCE_WORDS[face.confidence]}</dd>
        <dt>Identity</dt>
        <dd>{identityWords(face.identityLevel)}</dd>
        <dt>Operator</dt>
        <dd>{face.operatorName ?? "No operator has claimed this agent."}</dd>
      </dl>
    </section>
  );
}

function NotOptedIn(props: { view: AgentPageView }) {
  return (
    <p class="muted">
      Its owner has not published more: the reasons behind the score, its five dimensions, its history and open disputes appear here only when the owner
      chooses. Operators with an API key read them in the full report, <code>{`GET /report/${props.view.face.sid}`}</code>.
    </p>
  );
}

function Profile(props: { profile: PublicProfile }) {
  const { profile } = props;
  return (
    <>
      <section aria-labelledby="reasons">
        <h2 id="reasons">Why this score</h2>
        {profile.reasons.length === 0 ? (
          <p>Nothing holds the score back.</p>
        ) : (
          <ul>
            {profile.reasons.map((r) => (
              <li>{REASON_WORDS[r]}</li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="dimensions">
        <h2 id="dimensions">Five dimensions</h2>
        <div class="wide">
          <table>
            <caption>Each dimension from 0 to 1000; 500 is where every agent starts</caption>
            <thead>
              <tr>
                <th scope="col">Dimension</th>
                <th scope="col" class="num">
                  Score
                </th>
                <th scope="col">
                  <span class="muted">Out of 1000</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {DIMENSIONS.map((d) => (
                <tr>
                  <th scope="row">
                    {DIMENSION_WORDS[d].label}
                    <br />
                    <span class="muted dimension">{DIMENSION_WORDS[d].sentence}</span>
                  </th>
                  <td class="num">{profile.dimensions[d]}</td>
                  <td class="bar-cell">
                    <Bar value={profile.dimensions[d]} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section aria-labelledby="history">
        <h2 id="history">Score history</h2>
        <HistoryChart points={profile.history} fromStart={profile.historyFromStart} />
      </section>
      <section aria-labelledby="disputes">
        <h2 id="disputes">Open disputes</h2>
        {profile.disputes.length === 0 ? (
          <p>No report about this agent is disputed.</p>
        ) : (
          <ul class="disputes">
            {profile.disputes.map((d) => (
              <Dispute dispute={d} />
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

/** A dimension's bar: drawn, not styled, so the page needs no style attribute. Its number is beside it. */
function Bar(props: { value: number }) {
  return (
    <svg class="bar" viewBox="0 0 1000 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect width="1000" height="10" fill={COLOURS.track} />
      <rect width={props.value} height="10" fill={COLOURS.plot} />
    </svg>
  );
}

function Dispute(props: { dispute: PublicDispute }) {
  const d = props.dispute;
  return (
    <li>
      <p>
        Report {d.transactionId}, disputed by the owner since <time datetime={d.openedAt}>{whenWords(d.openedAt)}</time>. Reason: {d.reason}
      </p>
      {d.statement ? <p>The owner's statement: {d.statement}</p> : null}
      <p class="muted">
        Status: {DISPUTE_STATUS_WORDS[d.status]}
        {d.status === "open" ? (
          <>
            {" "}
            (by <time datetime={d.respondBy}>{whenWords(d.respondBy)}</time>)
          </>
        ) : null}
        . Until it is decided, the report counts.
      </p>
    </li>
  );
}

/**
 * "Verify this yourself", part by part, in order. A transparency-log proof of the score is one more
 * part here (with its data on the view), after the attestation it covers.
 */
const VERIFY_PARTS = [AttestationPart, KeysPart, CheckPart];

function Verify(props: { view: AgentPageView }) {
  return (
    <section aria-labelledby="verify">
      <h2 id="verify">Verify this yourself</h2>
      <p>
        You need not take this page's word for it. The service signs the public score; anyone can check the signature against the service's published keys,
        offline, with any JOSE library.
      </p>
      {VERIFY_PARTS.map((Part) => (
        <Part view={props.view} />
      ))}
    </section>
  );
}

function AttestationPart(props: { view: AgentPageView }) {
  const { attestation, origin, face } = props.view;
  return (
    <>
      <h3>The signed score (attestation)</h3>
      {"jws" in attestation ? (
        <>
          <p>
            A compact JWS (algorithm EdDSA, type <code>trust-attestation+jwt</code>), valid for 15 minutes from when this page was made:
          </p>
          <pre class="copy">
            <code>{attestation.jws}</code>
          </pre>
        </>
      ) : (
        <p>
          {attestation.missing === "suspended"
            ? "None: the service issues no attestation for a suspended agent."
            : "None: this deployment of the service has no signing keys configured."}
        </p>
      )}
      <p>
        A fresh one at any time: <code>{`GET ${origin}/score/${face.sid}/attestation`}</code>
      </p>
    </>
  );
}

function KeysPart(props: { view: AgentPageView }) {
  const url = `${props.view.origin}/.well-known/jwks.json`;
  return (
    <>
      <h3>The service's public keys</h3>
      <p>
        <a href={url}>{url}</a> (a JWKS; the attestation's <code>kid</code> names the key that signed it).
      </p>
    </>
  );
}

function CheckPart(props: { view: AgentPageView }) {
  const { origin, face } = props.view;
  return (
    <>
      <h3>Check it</h3>
      <p>
        With Node.js and the verifier in the service's source (<code>examples/verify-attestation.mjs</code>), which fetches a fresh attestation and checks its
        signature, issuer, subject and expiry:
      </p>
      <pre class="copy">
        <code>{`node examples/verify-attestation.mjs --url ${origin} --sid ${face.sid}`}</code>
      </pre>
      <p>
        To check the attestation above as it is, pass it instead: <code>{`--attestation "<JWS>"`}</code>. With any JOSE library, check:
      </p>
      <ul>
        <li>
          the signature, with the key of the JWKS its <code>kid</code> names (EdDSA);
        </li>
        <li>
          <code>typ</code> is <code>trust-attestation+jwt</code>, <code>iss</code> is <code>{origin}</code> and <code>sub</code> is <code>{face.sid}</code>;
        </li>
        <li>
          <code>exp</code> has not passed.
        </li>
      </ul>
    </>
  );
}

function Embed(props: { view: AgentPageView }) {
  const { origin, face } = props.view;
  const snippet = `<a href="${origin}/agents/${face.sid}"><img src="${origin}/badge/${face.sid}.svg" alt="trust badge"></a>`;
  return (
    <section aria-labelledby="embed">
      <h2 id="embed">Embed the badge</h2>
      <p>The badge links to this page:</p>
      <pre class="copy">
        <code>{snippet}</code>
      </pre>
    </section>
  );
}
