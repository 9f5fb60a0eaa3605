import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  CreateLicensePolicyBody,
  LicensePolicyListQuery,
  LicensePolicySchema,
  UpdateLicensePolicyBody,
} from './license-policies.schema.ts';
import {
  createLicensePolicy,
  deleteLicensePolicy,
  listLicensePolicies,
  updateLicensePolicy,
} from './license-policies.service.ts';
import { presentLicensePolicy } from './license-policies.presenter.ts';

const tags = ['license-policies'];

export function licensePolicyRoutes(app: App, { db, jobs }: AppContext): void {
  const deps = { db, jobs };

  app.get(
    '/api/license-policies',
    {
      config: { access: 'license-policies.list' },
      schema: {
        operationId: 'listLicensePolicies',
        description: 'Global licence policies and those owned by groups the caller can read.',
        tags,
        summary: 'Licence policies the caller can see',
        querystring: LicensePolicyListQuery,
        response: { 200: Type.Array(LicensePolicySchema) },
      },
    },
    async (request) => listLicensePolicies(db, currentUser(request), request.query),
  );

  app.post(
    '/api/license-policies',
    {
      config: { access: 'license-policy.create' },
      schema: {
        operationId: 'createLicensePolicy',
        description:
          'Creates a deny or allow list of SPDX licences (ids, ranges such as `GPL-2.0+`, `id WITH exception`, or `OR` of those), global (admins) or owned by a group the caller may write (it covers the group’s applications and its subgroups’). The versions it covers are evaluated in the background: components that break it raise `license` findings (scanner type `license-policy`).',
        tags,
        summary: 'Create a licence policy',
        body: CreateLicensePolicyBody,
        response: { 201: LicensePolicySchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createLicensePolicy(deps, currentUser(request), request.body, request.audit)),
  );

  app.get(
    '/api/license-policies/:id',
    {
      config: { access: 'license-policy.read' },
      schema: {
        operationId: 'getLicensePolicy',
        description: 'A licence policy: its list, mode, severity and owner.',
        tags,
        summary: 'A licence policy',
        params: IdParams,
        response: { 200: LicensePolicySchema },
      },
    },
    async (request) => presentLicensePolicy(resourceOf(request, 'license_policy')),
  );

  app.patch(
    '/api/license-policies/:id',
    {
      config: { access: 'license-policy.write' },
      schema: {
        operationId: 'updateLicensePolicy',
        description:
          'Changes a licence policy; the versions it covers are evaluated again in the background (findings it no longer raises are fixed, new ones raised).',
        tags,
        summary: 'Change a licence policy',
        params: IdParams,
        body: UpdateLicensePolicyBody,
        response: { 200: LicensePolicySchema },
      },
    },
    async (request) =>
      updateLicensePolicy(deps, resourceOf(request, 'license_policy'), request.body, request.audit),
  );

  app.delete(
    '/api/license-policies/:id',
    {
      config: { access: 'license-policy.write' },
      schema: {
        operationId: 'deleteLicensePolicy',
        description:
          'Deletes a licence policy; the versions it covered are evaluated again (the findings only it raised are fixed).',
        tags,
        summary: 'Delete a licence policy',
        params: IdParams,
      },
    },
    async (request, reply) => {
      await deleteLicensePolicy(deps, resourceOf(request, 'license_policy'), request.audit);
      return reply.status(204).send();
    },
  );
}
