/**
 * `npm run setup` writes the Agent messaging experience (issue 45, item 1): before, manifest.json declared
 * `assistant_view`, which Slack "will eventually" deprecate, and setup wrote it as it was. A manifest of the
 * old kind is moved as Slack's migration page says (docs.slack.dev/ai/migrating-to-agent-messaging).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { agentView, manifestWith } from '../../app/cli/setup-files.js';

/** manifest.json as it was before (the Assistant messaging experience), its layout kept. */
const ASSISTANT_MANIFEST = `{
  "features": {
    "assistant_view": {
      "assistant_description": "Your own AI agent."
    },
    "slash_commands": [{ "command": "/autohub", "url": "https://old.example/slack/events" }]
  },
  "settings": {
    "event_subscriptions": {
      "request_url": "https://old.example/slack/events",
      "bot_events": ["app_home_opened", "app_mention", "assistant_thread_context_changed", "assistant_thread_started", "message.im"]
    }
  }
}
`;

describe('the manifest setup writes', () => {
  it('moves an assistant view to the agent view: agent_description, and app_context_changed for the assistant-only events', () => {
    const moved = JSON.parse(manifestWith(ASSISTANT_MANIFEST, 'https://edge.example'));
    expect(moved.features).toEqual({
      agent_view: { agent_description: 'Your own AI agent.' },
      slash_commands: [{ command: '/autohub', url: 'https://edge.example/slack/events' }],
    });
    expect(moved.settings.event_subscriptions).toEqual({
      request_url: 'https://edge.example/slack/events',
      bot_events: ['app_home_opened', 'app_mention', 'app_context_changed', 'message.im'],
    });
  });

  it("leaves the project's manifest.json (an agent view already) as it is but for its URLs", () => {
    const current = readFileSync('manifest.json', 'utf8');
    expect(agentView(current)).toBe(current);
    expect(manifestWith(current, 'https://edge.example')).toBe(current.replaceAll(/https:\/\/[^"]+\/slack\/events/g, 'https://edge.example/slack/events'));
  });
});
