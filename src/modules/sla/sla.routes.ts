import { Type } from 'typebox';
import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import {
  AssignSlaBody,
  CreateSlaConfigurationBody,
  SlaAssignmentSchema,
  SlaConfigurationSchema,
  UpdateSlaConfigurationBody,
} from './sla.schema.ts';
import {
  applicationSla,
  assignApplicationSla,
  assignGroupSla,
  createSlaConfiguration,
  deleteSlaConfiguration,
  getSlaConfiguration,
  groupSla,
  listSlaConfigurations,
  updateSlaConfiguration,
} from './sla.service.ts';

const tags = ['sla'];

export function slaRoutes(app: App, { db, jobs }: AppContext): void {
  app.get(
    '/api/sla-configurations',
    {
      config: { access: 'sla-configurations.list' },
      schema: {
        operationId: 'listSlaConfigurations',
        description:
          'Global SLA configurations (the default first) and those owned by groups the caller can read, with where each is assigned.',
        tags,
        summary: 'SLA configurations the caller can see',
        response: { 200: Type.Array(SlaConfigurationSchema) },
      },
    },
    async (request) => listSlaConfigurations(db, currentUser(request)),
  );

  app.post(
    '/api/sla-configurations',
    {
      config: { access: 'sla-configuration.create', problems: [409] },
      schema: {
        operationId: 'createSlaConfiguration',
        description:
          'Creates an SLA configuration: days to fix per severity, each enforced or not. Owned by a group the caller may write (`owner_group_id`), or global (admins only).',
        tags,
        summary: 'Create an SLA configuration',
        body: CreateSlaConfigurationBody,
        response: { 201: SlaConfigurationSchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(await createSlaConfiguration(db, currentUser(request), request.body, request.audit)),
  );

  app.get(
    '/api/sla-configurations/:id',
    {
      config: { access: 'sla-configuration.read' },
      schema: {
        operationId: 'getSlaConfiguration',
        description: 'An SLA configuration with where it is assigned.',
        tags,
        summary: 'An SLA configuration',
        params: IdParams,
        response: { 200: SlaConfigurationSchema },
      },
    },
    async (request) =>
      getSlaConfiguration(db, currentUser(request), resourceOf(request, 'sla_configuration')),
  );

  app.patch(
    '/api/sla-configurations/:id',
    {
      config: { access: 'sla-configuration.write', problems: [409] },
      schema: {
        operationId: 'updateSlaConfiguration',
        description:
          'Changes an SLA configuration; when its days change, the open findings it governs get their SLA due dates recomputed by a background job queued in the same transaction (the answer does not wait; manual due dates stay).',
        tags,
        summary: 'Change an SLA configuration',
        params: IdParams,
        body: UpdateSlaConfigurationBody,
        response: { 200: SlaConfigurationSchema },
      },
    },
    async (request) =>
      updateSlaConfiguration(
        db,
        jobs,
        currentUser(request),
        resourceOf(request, 'sla_configuration'),
        request.body,
        request.audit,
      ),
  );

  app.delete(
    '/api/sla-configurations/:id',
    {
      config: { access: 'sla-configuration.write', problems: [409] },
      schema: {
        operationId: 'deleteSlaConfiguration',
        description:
          'Deletes an SLA configuration (not the default); where it was assigned, the group or application inherits again and its open findings follow.',
        tags,
        summary: 'Delete an SLA configuration',
        params: IdParams,
      },
    },
    async (request, reply) => {
      await deleteSlaConfiguration(db, jobs, resourceOf(request, 'sla_configuration'), request.audit);
      return reply.status(204).send();
    },
  );

  app.get(
    '/api/groups/:id/sla-configuration',
    {
      config: { access: 'group-sla.read' },
      schema: {
        operationId: 'getGroupSla',
        description:
          'The SLA configuration in force for the group: its own, else its nearest ancestor group’s (by path), else the default.',
        tags,
        summary: 'The SLA configuration of a group',
        params: IdParams,
        response: { 200: SlaAssignmentSchema },
      },
    },
    async (request) => groupSla(db, currentUser(request), resourceOf(request, 'group')),
  );

  app.put(
    '/api/groups/:id/sla-configuration',
    {
      config: { access: 'group-sla.write' },
      schema: {
        operationId: 'assignGroupSla',
        description:
          'Assigns an SLA configuration to the group (null: inherit again). Its applications and subgroups without one of their own inherit it; their open findings’ SLA due dates are recomputed by a background job (the answer does not wait).',
        tags,
        summary: 'Assign an SLA configuration to a group',
        params: IdParams,
        body: AssignSlaBody,
        response: { 200: SlaAssignmentSchema },
      },
    },
    async (request) =>
      assignGroupSla(
        db,
        jobs,
        currentUser(request),
        resourceOf(request, 'group'),
        request.body,
        request.audit,
      ),
  );

  app.get(
    '/api/applications/:id/sla-configuration',
    {
      config: { access: 'application.read' },
      schema: {
        operationId: 'getApplicationSla',
        description:
          'The SLA configuration in force for the application: its own, else its group’s or the nearest ancestor group’s, else the default.',
        tags,
        summary: 'The SLA configuration of an application',
        params: IdParams,
        response: { 200: SlaAssignmentSchema },
      },
    },
    async (request) => applicationSla(db, currentUser(request), resourceOf(request, 'application')),
  );

  app.put(
    '/api/applications/:id/sla-configuration',
    {
      config: { access: 'application.write' },
      schema: {
        operationId: 'assignApplicationSla',
        description:
          'Assigns an SLA configuration to the application (null: inherit from its groups); its open findings’ SLA due dates are recomputed by a background job (the answer does not wait).',
        tags,
        summary: 'Assign an SLA configuration to an application',
        params: IdParams,
        body: AssignSlaBody,
        response: { 200: SlaAssignmentSchema },
      },
    },
    async (request) =>
      assignApplicationSla(
        db,
        jobs,
        currentUser(request),
        resourceOf(request, 'application'),
        request.body,
        request.audit,
      ),
  );
}
