/** Title, which model answers (the picker), and which skills this chat has activated. */
import { SparkIcon } from '@/components/icons';
import type { ModelMenu } from '@/server/model/registry';
import { ModelPicker } from './model-picker';

export interface ActiveSkill {
  name: string;
  /** How it was last activated: by the person (`/name`) or by the model. */
  how?: 'explicit' | 'model';
  count?: number;
}

export function SkillChips({ skills }: { skills: ActiveSkill[] }) {
  if (skills.length === 0) return null;
  return (
    <ul className="skill-chips" aria-label="Active skills">
      {skills.map((skill) => (
        <li
          key={skill.name}
          className="skill-chip"
          data-testid={`skill-chip-${skill.name}`}
          title={
            skill.how === 'explicit'
              ? `Activated with /${skill.name}`
              : skill.how === 'model'
                ? 'Activated by the model'
                : 'Active in this chat'
          }
        >
          <SparkIcon width={12} height={12} />
          {skill.name}
        </li>
      ))}
    </ul>
  );
}

/** Download links for a stored chat (`GET /api/chats/:id/export`); plain links, the server names the file. */
export function ExportLinks({ chatId }: { chatId: string }) {
  const base = `/api/chats/${encodeURIComponent(chatId)}/export`;
  return (
    <span className="chat-export">
      {/* "chat as" goes on a phone (small-screens.css), where the header has one line for the links and the picker;
          the label keeps the full name for screen readers. */}
      <a
        href={`${base}?format=md`}
        download
        className="chat-export__link"
        data-testid="export-md"
        aria-label="Export chat as .md"
      >
        Export <span className="chat-export__words">chat as </span>.md
      </a>
      <a href={`${base}?format=json`} download className="chat-export__link" data-testid="export-json">
        or .json
      </a>
    </span>
  );
}

export function ChatHeader({
  title,
  models,
  model,
  onPickModel,
  skills,
  exportChatId,
}: {
  title: string;
  models: ModelMenu;
  /** The chat's model id (its pick, or the default). */
  model: string;
  onPickModel: (id: string) => void;
  skills: ActiveSkill[];
  /** Set once the chat is stored: offers the export links. */
  exportChatId?: string | null;
}) {
  return (
    <header className="chat-header">
      <div className="chat-header__row">
        <h1 className="chat-header__title" data-testid="chat-title">
          {title}
        </h1>
        {exportChatId ? <ExportLinks chatId={exportChatId} /> : null}
        <ModelPicker menu={models} value={model} onPick={onPickModel} />
      </div>
      <SkillChips skills={skills} />
    </header>
  );
}
