import type { Run } from "./context";
import type { Row } from "./table";
export function dynamicRows(run: Run): { rows: Row[]; notes: string[] } { void run; return { rows: [], notes: [] }; }
