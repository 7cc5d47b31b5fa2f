// Checks real answers against a served OpenAPI document: the status is declared for the operation,
// the body validates against its schema with no field the document leaves out, and every header
// the document marks required is there.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { Middleware } from "openapi-fetch";

type Json = Record<string, any>;

/** Every object schema closed: a field the document does not name is an error here. */
function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Json = Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, k === "example" || k === "examples" ? v : closed(v)]));
  const isObject = out.type === "object" || (Array.isArray(out.type) && out.type.includes("object")) || out.properties;
  if (isObject && out.additionalProperties === undefined) out.unevaluatedProperties = false;
  return out;
}

export interface Checked {
  operation: string;
  status: number;
}

export class Conformance {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  readonly checked: Checked[] = [];

  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv);
    this.ajv.addSchema({ $id: "doc", components: closed(doc.components) });
  }

  /** The problems of one answer to `method schemaPath` (empty when it conforms). */
  async problems(method: string, schemaPath: string, response: Response): Promise<string[]> {
    const where = `${method.toUpperCase()} ${schemaPath} ${response.status}`;
    const operation = this.doc.paths[schemaPath]?.[method.toLowerCase()];
    if (!operation) return [`${where}: no such operation in the document`];
    const declared = operation.responses[response.status];
    if (!declared) return [`${where}: status not declared`];
    const problems: string[] = [];
    for (const [name, header] of Object.entries((declared.headers ?? {}) as Json)) {
      const component = header.$ref ? this.doc.components.headers[header.$ref.split("/").pop()] : header;
      if (component.required && !response.headers.has(name)) problems.push(`${where}: no ${name} header`);
    }
    const media = declared.content?.["application/json"];
    if (media) {
      const body = await response.clone().json();
      const schema = JSON.parse(JSON.stringify(closed(media.schema)).replaceAll('"#/components/', '"doc#/components/'));
      const validate = this.ajv.compile(schema);
      if (!validate(body)) problems.push(`${where}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(body).slice(0, 400)}`);
    }
    this.checked.push({ operation: `${method.toUpperCase()} ${schemaPath}`, status: response.status });
    return problems;
  }

  /** An openapi-fetch middleware that records every answer's problems in `found`. */
  middleware(found: string[]): Middleware {
    return {
      onResponse: async ({ request, schemaPath, response }) => {
        found.push(...(await this.problems(request.method, schemaPath, response)));
      },
    };
  }
}
