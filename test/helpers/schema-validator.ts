// An independent validator for what the gateway generates: ajv with the standard formats, as a
// client checking tool arguments or structured output would use.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

const ajv = new Ajv({ strict: false, allErrors: true });
(addFormats as unknown as (instance: Ajv) => void)(ajv);

export function validatorFor(schema: Record<string, unknown>): ValidateFunction {
  const { $schema: _draft, ...rest } = schema;
  return ajv.compile(rest);
}

/** Throws with ajv's errors when `value` does not validate. */
export function expectValid(schema: Record<string, unknown>, value: unknown): void {
  const validate = validatorFor(schema);
  if (!validate(value)) throw new Error(`${JSON.stringify(value)} does not validate: ${ajv.errorsText(validate.errors)}`);
}
