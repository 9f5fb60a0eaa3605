import { Type, type Static } from 'typebox';
import { BodyObject } from '../../http/schemas.ts';

/** Any string up to the sizes create accepts; the email is normalized before lookup. */
export const LoginBody = BodyObject({
  email: Type.String({ minLength: 1, maxLength: 320 }),
  password: Type.String({ minLength: 1, maxLength: 1024 }),
});
export type LoginInput = Static<typeof LoginBody>;
