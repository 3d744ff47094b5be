// One short line that says what a tool call would do, for people: the Web UI's current details, the CLI's tables,
// Slack's and AG-UI's title of a waiting call.
// `send_email to alice@example.com`, `delete_record record_id DR-42`. Pure; safe in workflow code.

export function shorten(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  // Never half a surrogate pair: the cut would leave a character that is not one.
  return flat.length > max ? `${flat.slice(0, max - 1).replace(/[\ud800-\udbff]$/, '')}…` : flat;
}

/** The tool and its first argument (name and value), shortened. */
export function summarizeCall(toolName: string, argumentsJson: string, max = 60): string {
  let first = '';
  try {
    const args = JSON.parse(argumentsJson) as Record<string, unknown>;
    const [key, value] = Object.entries(args ?? {})[0] ?? [];
    if (key !== undefined) first = ` ${key} ${typeof value === 'string' ? value : JSON.stringify(value)}`;
  } catch {
    first = ` ${argumentsJson}`;
  }
  return shorten(`${toolName}${first}`, max);
}

/** "email-assistant asks to run send_email to alice@example.com": a waiting call in one line (Slack's title, AG-UI's interrupt). */
export function asksToRun(agentName: string, toolName: string, argumentsJson: string): string {
  return `${agentName} asks to run ${summarizeCall(toolName, argumentsJson)}`;
}

/** A call's arguments laid out for reading (the inbox, notification bodies); text that is not JSON as it is. */
export function prettyArguments(argumentsJson: string): string {
  try {
    return JSON.stringify(JSON.parse(argumentsJson), null, 2);
  } catch {
    return argumentsJson;
  }
}
