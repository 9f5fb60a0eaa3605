import { GROUP_SCHEMA, LIST_RESPONSE_SCHEMA, USER_SCHEMA } from './scim.schema.ts';
import { MAX_RESULTS } from './scim-resource.ts';

/**
 * What a provisioning client reads before it starts (RFC 7644 §4): the features this server has,
 * its two resource types, and the attributes of each that it keeps.
 */

const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

export function serviceProviderConfig(base: string) {
  return {
    schemas: [CONFIG_SCHEMA],
    documentationUri: `${base.replace(/\/scim\/v2$/, '')}/api/docs`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_RESULTS },
    changePassword: { supported: false },
    sort: { supported: false },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: 'oauthbearertoken',
        name: 'Bearer token',
        description:
          'A SCIM token made by an admin (POST /api/admin/scim-tokens), sent as Authorization: Bearer',
        primary: true,
      },
    ],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

function resourceType(base: string, id: 'User' | 'Group') {
  return {
    schemas: [RESOURCE_TYPE_SCHEMA],
    id,
    name: id,
    endpoint: `/${id}s`,
    schema: id === 'User' ? USER_SCHEMA : GROUP_SCHEMA,
    meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${id}` },
  };
}

export function resourceTypes(base: string) {
  const resources = [resourceType(base, 'User'), resourceType(base, 'Group')];
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: 2,
    itemsPerPage: 2,
    startIndex: 1,
    Resources: resources,
  };
}

export function resourceTypeById(base: string, id: string) {
  return id === 'User' || id === 'Group' ? resourceType(base, id) : undefined;
}

const attribute = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'string',
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: 'readWrite',
  returned: 'default',
  uniqueness: 'none',
  ...extra,
});

const subValue = (description: string) => [
  attribute('value', { description }),
  attribute('display', { mutability: 'readOnly' }),
  attribute('type'),
  attribute('primary', { type: 'boolean' }),
];

function schemaOf(base: string, id: string) {
  const common = {
    schemas: [SCHEMA_SCHEMA],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${id}` },
  };
  if (id === USER_SCHEMA) {
    return {
      ...common,
      id,
      name: 'User',
      description: 'A scanhub user account',
      attributes: [
        attribute('userName', {
          required: true,
          uniqueness: 'server',
          description: 'The email unless set otherwise',
        }),
        attribute('externalId', { caseExact: true }),
        attribute('name', {
          type: 'complex',
          subAttributes: [attribute('formatted'), attribute('givenName'), attribute('familyName')],
        }),
        attribute('displayName'),
        attribute('active', {
          type: 'boolean',
          description: 'false disables the account, ends its sessions and revokes its API keys',
        }),
        attribute('emails', {
          type: 'complex',
          multiValued: true,
          subAttributes: subValue('An email address; the primary one signs in'),
        }),
        attribute('groups', {
          type: 'complex',
          multiValued: true,
          mutability: 'readOnly',
          subAttributes: subValue('A SCIM group id'),
        }),
      ],
    };
  }
  if (id === GROUP_SCHEMA) {
    return {
      ...common,
      id,
      name: 'Group',
      description: 'A scanhub team created by SCIM',
      attributes: [
        attribute('displayName', { required: true, uniqueness: 'server' }),
        attribute('externalId', { caseExact: true }),
        attribute('members', { type: 'complex', multiValued: true, subAttributes: subValue('A user id') }),
      ],
    };
  }
  return undefined;
}

export function schemas(base: string) {
  const resources = [schemaOf(base, USER_SCHEMA), schemaOf(base, GROUP_SCHEMA)];
  return {
    schemas: [LIST_RESPONSE_SCHEMA],
    totalResults: 2,
    itemsPerPage: 2,
    startIndex: 1,
    Resources: resources,
  };
}

export const schemaById = schemaOf;
