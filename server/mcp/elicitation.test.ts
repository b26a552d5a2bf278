import { describe, expect, it } from 'vitest';
import { acceptWithDefaults, checkValues, defaultValues, elicitationView, formFields } from './elicitation';

// The conformance suite's SEP-1034 schema, plus the titled and multi-select enums of the spec.
const schema = {
  type: 'object',
  properties: {
    name: { type: 'string', description: 'User name', default: 'John Doe', minLength: 2, maxLength: 20 },
    email: { type: 'string', format: 'email', title: 'E-mail' },
    age: { type: 'integer', default: 30, minimum: 0, maximum: 150 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    size: {
      type: 'string',
      oneOf: [
        { const: 's', title: 'Small' },
        { const: 'l', title: 'Large' },
      ],
    },
    tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a'], maxItems: 2 },
    colours: { type: 'array', items: { anyOf: [{ const: 'r', title: 'Red' }] } },
    verified: { type: 'boolean', default: true },
    nested: { type: 'object', properties: {} },
  },
  required: ['email'],
};

describe('elicitation forms', () => {
  it('reads every primitive kind with its defaults, and leaves out what the spec does not allow', () => {
    const fields = formFields(schema);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['name', 'string'],
      ['email', 'string'],
      ['age', 'integer'],
      ['score', 'number'],
      ['status', 'enum'],
      ['size', 'enum'],
      ['tags', 'multi'],
      ['colours', 'multi'],
      ['verified', 'boolean'],
    ]);
    expect(fields.find((f) => f.name === 'size')).toMatchObject({
      options: [
        { value: 's', label: 'Small' },
        { value: 'l', label: 'Large' },
      ],
    });
    expect(fields.find((f) => f.name === 'email')).toMatchObject({ title: 'E-mail', required: true, format: 'email' });
    expect(defaultValues(fields)).toEqual({
      name: 'John Doe',
      age: 30,
      score: 95.5,
      status: 'active',
      tags: ['a'],
      verified: true,
    });
  });

  it('checks values: types, lengths, formats, bounds, options; empty fields take their defaults', () => {
    const fields = formFields(schema);
    expect(checkValues(fields, { email: 'a@b.example', age: '41', tags: ['b', 'c'] })).toEqual({
      ok: true,
      content: {
        name: 'John Doe',
        email: 'a@b.example',
        age: 41,
        score: 95.5,
        status: 'active',
        tags: ['b', 'c'],
        verified: true,
      },
    });
    const bad = checkValues(fields, {
      name: 'x',
      email: 'nope',
      age: 2.5,
      status: 'gone',
      tags: ['a', 'b', 'c'],
      verified: 'yes',
    });
    expect(bad).toEqual({
      ok: false,
      problems: {
        name: '"name" must be at least 2 characters',
        email: '"E-mail" must be an email address',
        age: '"age" must be a whole number',
        status: '"status" must be one of the options',
        tags: '"tags" must be at most 2 choices',
        verified: '"verified" must be yes or no',
      },
    });
    expect(checkValues(fields, {})).toMatchObject({ ok: false, problems: { email: '"E-mail" is required' } });
  });

  it('cleans the server text: hidden and bidi characters removed', () => {
    const view = elicitationView({
      message: 'Pick\u202E one\u200B',
      requestedSchema: { type: 'object', properties: { a: { type: 'string', title: 'T\u{E0041}itle' } } },
    });
    expect(view).toMatchObject({ mode: 'form', message: 'Pick one', fields: [{ title: 'Title' }] });
  });

  it('shows http(s) links only', () => {
    const url = { mode: 'url' as const, message: 'Sign in', elicitationId: 'e1' };
    expect(elicitationView({ ...url, url: 'https://auth.example/x?y=1' })).toEqual({
      mode: 'url',
      message: 'Sign in',
      url: 'https://auth.example/x?y=1',
      host: 'auth.example',
    });
    expect(elicitationView({ ...url, url: 'javascript:alert(1)' })).toBeNull();
  });

  it('answers headlessly: a form with its defaults, a URL declined', () => {
    const { required: _, ...optional } = schema;
    expect(acceptWithDefaults({ message: 'm', requestedSchema: optional as never })).toMatchObject({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true },
    });
    expect(acceptWithDefaults({ message: 'm', requestedSchema: schema as never })).toEqual({ action: 'decline' });
    expect(acceptWithDefaults({ mode: 'url', message: 'm', url: 'https://a.example', elicitationId: 'e' })).toEqual({
      action: 'decline',
    });
  });
});
