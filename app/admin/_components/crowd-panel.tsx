"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button, Table, Tag, type TableColumnsType } from "antd";
import { useTRPC } from "@/app/_components/trpc";
import { useLang } from "@/app/_i18n/client";
import { ADMIN_MESSAGES, type AdminMessages } from "@/app/_i18n/admin-messages";
import { toBlacklist, type CrowdAccount, type CrowdGroup, type CrowdKind } from "@/server/admin/crowd-report";
import { adminTime } from "./admin-time";
import { TAG } from "./status-colors";
import { rowAttributes, tableWidth } from "./table-layout";
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

/** A group and, under it, its listed accounts: one table row each, so antd lays them out alike. */
type CrowdRow =
  | { key: string; group: CrowdGroup; groupKey: string; member?: undefined }
  | { key: string; group: CrowdGroup; groupKey: string; member: CrowdAccount };

function crowdRows(groups: CrowdGroup[]): CrowdRow[] {
  return groups.flatMap((group, index) => {
    const groupKey = groupId(group, index);
    return [
      { key: groupKey, group, groupKey },
      ...group.members.map((member) => ({ key: `${groupKey}-${member.userId}`, group, groupKey, member })),
    ];
  });
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
  // As the orders and sales tables: fixed widths, one-line cells cut with the whole text in the
  // title, and a narrow screen scrolls the table inside its card.
  const columns: TableColumnsType<CrowdRow> = [
    {
      title: t.keyHeader[kind],
      key: "key",
      width: 300,
      fixed: "start",
      ellipsis: { showTitle: false },
      render: (_, { group, member }) =>
        member ? (
          <span className={styles.member} title={t.account(member.email, member.userId)}>
            {t.account(member.email, member.userId)}
          </span>
        ) : (
          <strong title={group.fullAddress ?? group.label}>{group.label}</strong>
        ),
    },
    { title: t.accounts, key: "accounts", width: 90, render: (_, { group, member }) => (member ? null : group.accounts) },
    { title: t.orders, key: "orders", width: 140, render: (_, { group, member }) => (member ? member.orders : group.orders) },
    {
      title: t.blacklisted,
      key: "blacklisted",
      width: 110,
      render: (_, { group, member }) =>
        !member ? (
          group.blacklisted
        ) : member.blacklisted ? (
          <Tag color={TAG.red} data-testid="crowd-account-blacklisted">
            {t.blacklistedBadge}
          </Tag>
        ) : null,
    },
    {
      title: t.newAccounts,
      key: "new",
      width: 150,
      render: (_, { group, member }) => (!member ? group.newAccounts : member.newAccount ? <Tag color={TAG.gold}>{t.newBadge}</Tag> : null),
    },
    {
      title: <span className="visually-hidden">{t.blacklist}</span>,
      key: "action",
      width: 160,
      render: (_, { group, groupKey, member }) => {
        if (member)
          return member.blacklisted ? null : (
            <Button
              size="small"
              disabled={pending}
              onClick={() => onAsk({ at: groupKey, userIds: [member.userId], what: t.confirmOne(t.account(member.email, member.userId)) })}
            >
              {t.blacklist}
            </Button>
          );
        const open = toBlacklist(group);
        return (
          <Button
            size="small"
            disabled={open.length === 0 || pending}
            onClick={() => onAsk({ at: groupKey, userIds: open, what: t.confirmGroup(open.length, t.groupName[kind](group.label)) })}
          >
            {t.blacklistAll(open.length)}
          </Button>
        );
      },
    },
  ];
  const askedHere = asked && groups.some((g, index) => groupId(g, index) === asked.at) ? asked : null;
  return (
    <div data-testid={`crowd-${kind.toLowerCase()}`}>
      <h3>{t.kinds[kind]}</h3>
      {groups.length === 0 ? (
        <p className="muted">{t.none}</p>
      ) : (
        <>
          <Table<CrowdRow>
            aria-label={t.kinds[kind]}
            rowKey="key"
            size="small"
            columns={columns}
            dataSource={crowdRows(groups)}
            pagination={false}
            scroll={{ x: tableWidth(columns) }}
            onRow={({ group, member }) =>
              member
                ? rowAttributes({ "data-testid": "crowd-account", "data-user-id": member.userId })
                : rowAttributes({ "data-testid": "crowd-group", "data-label": group.label })
            }
          />
          {groups
            .filter((g) => g.unlisted > 0)
            .map((g) => (
              <p key={g.label} className="muted">
                {t.unlisted(g.unlisted, t.groupName[kind](g.label))}
              </p>
            ))}
          {askedHere ? <Confirmation t={t} what={askedHere.what} onConfirm={props.onConfirm} onCancel={props.onCancel} /> : null}
        </>
      )}
    </div>
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
        <Button type="primary" danger onClick={onConfirm}>
          {t.yes}
        </Button>
        <Button onClick={onCancel}>{t.keep}</Button>
      </div>
    </div>
  );
}
