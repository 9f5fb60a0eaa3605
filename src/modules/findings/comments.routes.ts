import { resourceOf } from '../../access/route-hook.ts';
import type { App, AppContext } from '../../app-context.ts';
import { currentUser } from '../../http/auth.ts';
import { IdParams } from '../../http/schemas.ts';
import { CommentListSchema, CommentSchema, CreateCommentBody } from './comments.schema.ts';
import { addComment, listComments } from './comments.service.ts';

export function commentRoutes(app: App, { db, jobs }: AppContext): void {
  app.get(
    '/api/findings/:id/comments',
    {
      config: { access: 'comments.read' },
      schema: {
        operationId: 'listFindingComments',
        description: 'Comments of a finding in thread order (replies follow their parent).',
        tags: ['findings'],
        summary: 'Comments of a finding in thread order',
        params: IdParams,
        response: { 200: CommentListSchema },
      },
    },
    async (request) => listComments(db, resourceOf(request, 'finding')),
  );

  app.post(
    '/api/findings/:id/comments',
    {
      config: { access: 'finding.write' },
      schema: {
        operationId: 'createFindingComment',
        description: 'Adds a comment, or a reply when `parent_id` names a comment of the same finding.',
        tags: ['findings'],
        summary: 'Comment on a finding, or reply to one of its comments',
        params: IdParams,
        body: CreateCommentBody,
        response: { 201: CommentSchema },
      },
    },
    async (request, reply) =>
      reply
        .status(201)
        .send(
          await addComment(
            { db, jobs },
            currentUser(request),
            resourceOf(request, 'finding'),
            request.body,
            request.audit,
          ),
        ),
  );
}
