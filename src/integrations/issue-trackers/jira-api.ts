import { Version2Client, Version3Client } from 'jira.js';
import { outboundAxiosAdapter, type OutboundPolicy } from './outbound-fetch.ts';

/**
 * The few Jira calls scanhub makes, over either REST version: Jira Cloud (basic auth, email + API
 * token) speaks v3, whose texts are Atlassian documents; Jira Data Center (a bearer personal access
 * token) has only v2, whose texts are plain wiki markup. Both clients get the guarded axios adapter.
 */

export interface JiraIssue {
  id?: string;
  key?: string;
  fields?: { status?: { statusCategory?: { key?: string } } };
}
export interface JiraTransition {
  id?: string;
  to?: { statusCategory?: { key?: string } };
}
export interface JiraNewIssue {
  projectKey: string;
  issueType: string;
  summary: string;
  /** `text` for v3 (a document's text nodes are never markup), `wiki` for v2 (wiki markup). */
  description: { text: string; wiki: string };
  labels: string[];
}

export interface JiraApi {
  checkAccess(projectKey: string): Promise<void>;
  create(issue: JiraNewIssue): Promise<JiraIssue>;
  search(jql: string): Promise<JiraIssue[]>;
  get(key: string): Promise<JiraIssue>;
  transitions(key: string): Promise<JiraTransition[]>;
  transition(key: string, id: string): Promise<void>;
  comment(key: string, text: string): Promise<void>;
}

export interface JiraConnection {
  site: string;
  authType: 'token' | 'basic';
  email: string | null;
  token: string;
}

/** Atlassian Document Format: one paragraph per line (the v3 API takes no plain text). */
function document(text: string) {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  return {
    type: 'doc' as const,
    version: 1 as const,
    content: lines.map((line) => ({ type: 'paragraph', content: [{ type: 'text', text: line }] })),
  };
}

export function jiraApi(connection: JiraConnection, policy: OutboundPolicy): JiraApi {
  const adapter = outboundAxiosAdapter(policy);
  if (connection.authType === 'basic') {
    const client = new Version3Client({
      host: connection.site,
      authentication: { basic: { email: connection.email ?? '', apiToken: connection.token } },
      baseRequestConfig: { adapter },
    });
    return {
      checkAccess: async (projectKey) => {
        await client.myself.getCurrentUser();
        await client.projects.getProject({ projectIdOrKey: projectKey });
      },
      create: (issue) =>
        client.issues.createIssue({
          fields: {
            project: { key: issue.projectKey },
            issuetype: { name: issue.issueType },
            summary: issue.summary,
            description: document(issue.description.text),
            labels: issue.labels,
          },
        }),
      search: async (jql) =>
        (
          await client.issueSearch.searchForIssuesUsingJqlEnhancedSearch({
            jql,
            fields: ['status'],
            maxResults: 5,
          })
        ).issues ?? [],
      get: (key) => client.issues.getIssue({ issueIdOrKey: key, fields: ['status'] }),
      transitions: async (key) =>
        (await client.issues.getTransitions({ issueIdOrKey: key })).transitions ?? [],
      transition: (key, id) => client.issues.doTransition({ issueIdOrKey: key, transition: { id } }),
      comment: async (key, text) => {
        await client.issueComments.addComment({ issueIdOrKey: key, comment: document(text) });
      },
    };
  }
  // Data Center: a personal access token is a bearer header (jira.js's oauth2 mode wants a cloud id).
  const client = new Version2Client({
    host: connection.site,
    baseRequestConfig: { adapter, headers: { Authorization: `Bearer ${connection.token}` } },
  });
  return {
    checkAccess: async (projectKey) => {
      await client.myself.getCurrentUser();
      await client.projects.getProject({ projectIdOrKey: projectKey });
    },
    create: (issue) =>
      client.issues.createIssue({
        fields: {
          project: { key: issue.projectKey },
          issuetype: { name: issue.issueType },
          summary: issue.summary,
          description: issue.description.wiki,
          labels: issue.labels,
        },
      }),
    search: async (jql) =>
      (await client.issueSearch.searchForIssuesUsingJql({ jql, fields: ['status'], maxResults: 5 })).issues ??
      [],
    get: (key) => client.issues.getIssue({ issueIdOrKey: key, fields: ['status'] }),
    transitions: async (key) => (await client.issues.getTransitions({ issueIdOrKey: key })).transitions ?? [],
    transition: (key, id) => client.issues.doTransition({ issueIdOrKey: key, transition: { id } }),
    comment: async (key, text) => {
      await client.issueComments.addComment({ issueIdOrKey: key, comment: text });
    },
  };
}
