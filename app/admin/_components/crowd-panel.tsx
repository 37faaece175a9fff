"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { useTRPC } from "@/app/_components/trpc";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES, type AdminMessages } from "@/app/_i18n/admin-messages";
import { toBlacklist, type CrowdAccount, type CrowdGroup, type CrowdKind } from "@/server/admin/crowd-report";
import { adminTime } from "./admin-time";
import styles from "../admin.module.css";

/** A modest poll: the report is a handful of GROUP BY queries over the sale's orders. */
const CROWD_POLL_MS = 10_000;

/** What the operator asked to blacklist, waiting for the confirmation; `at` names the group it shows under. */
interface Asked {
  at: string;
  userIds: number[];
  what: string;
}

const groupId = (g: CrowdGroup, index: number) => `${g.kind}-${index}`;

/** The sale's crowd (issue #42 item 5): new accounts, shared addresses, devices and persons, blacklisting from there. */
export function CrowdPanel({ saleId }: { saleId: number }) {
  const trpc = useTRPC();
  const lang = useLang();
  const t = ADMIN_MESSAGES[lang].crowd;
  const queryClient = useQueryClient();
  // On a failed poll react-query keeps the last reading in `data`: shown, with a note.
  const crowd = useQuery({ ...trpc.admin.saleCrowd.queryOptions({ saleId }), refetchInterval: CROWD_POLL_MS });
  const [asked, setAsked] = useState<Asked | null>(null);
  const blacklist = useMutation(
    trpc.admin.blacklistAccounts.mutationOptions({
      // Half a batch may have landed before a failure: read the crowd again either way.
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.admin.saleCrowd.queryKey({ saleId }) }),
    }),
  );
  const ask = (next: Asked) => {
    blacklist.reset();
    setAsked(next);
  };
  const confirm = () => {
    if (asked) blacklist.mutate({ userIds: asked.userIds });
    setAsked(null);
  };

  const data = crowd.data;
  return (
    <section className="card" aria-label={t.title} data-testid="crowd">
      <h2>{t.title}</h2>
      <p className="muted">{t.intro}</p>
      {!data ? (
        crowd.isError ? (
          <p className="status bad" role="alert">
            {crowd.error.message}
          </p>
        ) : (
          <p className="muted">{ADMIN_MESSAGES[lang].loading}</p>
        )
      ) : (
        <>
          <dl className="stats">
            <div>
              <dt>{t.shoppers}</dt>
              <dd data-testid="crowd-shoppers">{data.shoppers.toLocaleString()}</dd>
            </div>
            <div>
              <dt>{t.blacklistedShoppers}</dt>
              <dd data-testid="crowd-blacklisted">{data.blacklistedShoppers.toLocaleString()}</dd>
            </div>
            <div>
              <dt>{t.newShoppers}</dt>
              <dd data-testid="crowd-new-shoppers">{data.newAccounts.shoppers.toLocaleString()}</dd>
            </div>
            <div>
              <dt>{t.newOverall}</dt>
              <dd data-testid="crowd-new-overall">{data.newAccounts.overall.toLocaleString()}</dd>
            </div>
          </dl>
          <p className="muted">{t.readAt(adminTime(data.readAt, lang))}</p>
          {crowd.isError ? (
            <p className="status wait" role="status" data-testid="crowd-stale">
              {t.stale(crowd.error.message)}
            </p>
          ) : null}
          {blacklist.data ? (
            <p className="status ok" role="status" data-testid="crowd-result">
              {t.done(blacklist.data.blacklisted.length, blacklist.data.alreadyBlacklisted.length)}
            </p>
          ) : null}
          {blacklist.error ? (
            <p className="status bad" role="alert" data-testid="crowd-error">
              {blacklist.error.message}
            </p>
          ) : null}
          {(
            [
              ["ADDRESS", data.addresses],
              ["DEVICE", data.devices],
              ["PERSON", data.persons],
            ] as [CrowdKind, CrowdGroup[]][]
          ).map(([kind, groups]) => (
            <GroupTable
              key={kind}
              t={t}
              kind={kind}
              groups={groups}
              asked={asked}
              pending={blacklist.isPending}
              onAsk={ask}
              onConfirm={confirm}
              onCancel={() => setAsked(null)}
            />
          ))}
        </>
      )}
    </section>
  );
}

function GroupTable(props: {
  t: AdminMessages["crowd"];
  kind: CrowdKind;
  groups: CrowdGroup[];
  asked: Asked | null;
  pending: boolean;
  onAsk: (asked: Asked) => void;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { t, kind, groups, asked, pending, onAsk } = props;
  return (
    <div data-testid={`crowd-${kind.toLowerCase()}`}>
      <h3>{t.kinds[kind]}</h3>
      {groups.length === 0 ? (
        <p className="muted">{t.none}</p>
      ) : (
        <div className={styles.tableScroll}>
          <table className="table" aria-label={t.kinds[kind]}>
            <thead>
              <tr>
                <th>{t.keyHeader[kind]}</th>
                <th>{t.accounts}</th>
                <th>{t.orders}</th>
                <th>{t.blacklisted}</th>
                <th>{t.newAccounts}</th>
                <th />
              </tr>
            </thead>
            {groups.map((g, index) => {
              const id = groupId(g, index);
              const open = toBlacklist(g);
              return (
                <tbody key={id} data-testid="crowd-group" data-label={g.label}>
                  <tr>
                    <th scope="rowgroup" title={g.fullAddress ?? undefined}>
                      {g.label}
                    </th>
                    <td>{g.accounts}</td>
                    <td>{g.orders}</td>
                    <td>{g.blacklisted}</td>
                    <td>{g.newAccounts}</td>
                    <td>
                      <button
                        type="button"
                        className="secondary small"
                        disabled={open.length === 0 || pending}
                        onClick={() => onAsk({ at: id, userIds: open, what: t.confirmGroup(open.length, t.groupName[kind](g.label)) })}
                      >
                        {t.blacklistAll(open.length)}
                      </button>
                    </td>
                  </tr>
                  {g.members.map((m) => (
                    <MemberRow
                      key={m.userId}
                      t={t}
                      member={m}
                      pending={pending}
                      onAsk={() => onAsk({ at: id, userIds: [m.userId], what: t.confirmOne(t.account(m.email, m.userId)) })}
                    />
                  ))}
                  {g.unlisted > 0 ? (
                    <tr>
                      <td colSpan={6} className="muted">
                        {t.unlisted(g.unlisted)}
                      </td>
                    </tr>
                  ) : null}
                  {asked?.at === id ? (
                    <tr>
                      <td colSpan={6}>
                        <Confirmation t={t} what={asked.what} onConfirm={props.onConfirm} onCancel={props.onCancel} />
                      </td>
                    </tr>
                  ) : null}
                </tbody>
              );
            })}
          </table>
        </div>
      )}
    </div>
  );
}

function MemberRow({
  t,
  member: m,
  pending,
  onAsk,
}: {
  t: AdminMessages["crowd"];
  member: CrowdAccount;
  pending: boolean;
  onAsk: () => void;
}) {
  return (
    <tr data-testid="crowd-account" data-user-id={m.userId}>
      <td colSpan={2}>
        {t.account(m.email, m.userId)}
        {m.newAccount ? (
          <Fragment>
            {" "}
            <span className="badge wait">{t.newBadge}</span>
          </Fragment>
        ) : null}
      </td>
      <td>{m.orders}</td>
      <td>
        {m.blacklisted ? (
          <span className="badge live" data-testid="crowd-account-blacklisted">
            {t.blacklistedBadge}
          </span>
        ) : null}
      </td>
      <td />
      <td>
        {m.blacklisted ? null : (
          <button type="button" className="secondary small" disabled={pending} onClick={onAsk}>
            {t.blacklist}
          </button>
        )}
      </td>
    </tr>
  );
}

/** Blacklisting signs people out and refuses them everywhere: said in full, then confirmed or not. */
function Confirmation({
  t,
  what,
  onConfirm,
  onCancel,
}: {
  t: AdminMessages["crowd"];
  what: string;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <div className="status wait confirm" role="alertdialog" aria-label={t.confirmLabel} aria-describedby="crowd-confirm-text">
      <p id="crowd-confirm-text">{t.confirmText(what)}</p>
      <div className="actions">
        <button type="button" onClick={onConfirm}>
          {t.yes}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          {t.keep}
        </button>
      </div>
    </div>
  );
}
