// The MCP SDK's default validator, never used here: the service passes CfWorkerJsonSchemaValidator
// to every Server it makes (shims/README.md). Constructing this one is a mistake, said loudly.
export class AjvJsonSchemaValidator {
  constructor() {
    throw new Error("ajv is not bundled: give the MCP Server a jsonSchemaValidator (CfWorkerJsonSchemaValidator)");
  }
}
