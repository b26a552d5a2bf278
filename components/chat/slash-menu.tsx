'use client';
/**
 * The skill picker under a leading `/`. Focus stays in the textarea (which points at the highlighted option with
 * aria-activedescendant), so the keyboard handling lives in the composer and this list only renders and takes clicks.
 */
import type { SkillSummary } from '@/server/chat/wire-types';

/**
 * `/api/skills` adds `warning` when a name looks like another skill's (a lookalike may impersonate it), and the
 * skill's `argument-hint` (an extension) when it has one.
 */
type MenuSkill = SkillSummary & { warning?: string; argumentHint?: string };

interface SlashMenuProps {
  id: string;
  skills: MenuSkill[];
  activeIndex: number;
  loading: boolean;
  error: string | null;
  optionId: (index: number) => string;
  onHover: (index: number) => void;
  onChoose: (skill: SkillSummary) => void;
  /**
   * Opens "Manage skills…" (the person's own switched-off skills), the option after the skills (index
   * `skills.length`); absent: no settings entry.
   */
  onSettings?: () => void;
}

function scrollIntoViewIfNeeded(element: HTMLElement | null) {
  element?.scrollIntoView({ block: 'nearest' });
}

export function SlashMenu({
  id,
  skills,
  activeIndex,
  loading,
  error,
  optionId,
  onHover,
  onChoose,
  onSettings,
}: SlashMenuProps) {
  const empty = skills.length === 0;
  return (
    <div className="slash-menu" data-testid="slash-menu">
      <div className="slash-menu__heading" aria-hidden="true">
        Skills
      </div>
      <div role="listbox" id={id} aria-label="Skills" className="slash-menu__list">
        {skills.map((skill, index) => (
          // biome-ignore lint/a11y/useKeyWithClickEvents: the textarea owns the keyboard (aria-activedescendant); this is the mouse path.
          <div
            key={skill.name}
            id={optionId(index)}
            role="option"
            tabIndex={-1}
            aria-selected={index === activeIndex}
            // Keep the highlighted option visible when arrowing through a list taller than the menu.
            ref={index === activeIndex ? scrollIntoViewIfNeeded : undefined}
            data-testid={`slash-option-${skill.name}`}
            className="slash-option"
            // mousedown would move focus out of the textarea before the click lands.
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => index !== activeIndex && onHover(index)}
            onClick={() => onChoose(skill)}
          >
            <span className="slash-option__name">/{skill.name}</span>
            {skill.argumentHint ? <span className="slash-option__hint">{skill.argumentHint}</span> : null}
            <span className="slash-option__description">{skill.description}</span>
            {skill.warning ? (
              <span className="slash-option__warning" role="note" data-testid={`slash-warning-${skill.name}`}>
                ⚠ {skill.warning}
              </span>
            ) : null}
          </div>
        ))}
        {onSettings && !empty ? (
          // The last option: the arrow keys reach it like a skill (the textarea owns the keyboard), Enter opens it.
          // biome-ignore lint/a11y/useKeyWithClickEvents: the textarea owns the keyboard (aria-activedescendant); this is the mouse path.
          <div
            id={optionId(skills.length)}
            role="option"
            tabIndex={-1}
            aria-selected={activeIndex === skills.length}
            ref={activeIndex === skills.length ? scrollIntoViewIfNeeded : undefined}
            className="slash-menu__settings"
            data-testid="slash-settings"
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => activeIndex !== skills.length && onHover(skills.length)}
            onClick={onSettings}
          >
            Manage skills…
          </div>
        ) : null}
      </div>
      {empty ? (
        <div className="slash-menu__empty" role="status">
          {error ? `Could not load skills: ${error}` : loading ? 'Looking for skills…' : 'No skill matches'}
        </div>
      ) : null}
    </div>
  );
}
