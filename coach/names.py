"""Names of employers and products, for the checks that must tell a name from a word: the guard (a rewrite may not
add an employer) and the JD reader (a company is not a technical term). Lists, because a name has no shape that
gives it away at a sentence start or in Chinese; anywhere else the guard checks every capitalised word anyway."""

from __future__ import annotations

CJK_ORGS = (
    "字节跳动 字节 抖音 火山引擎 阿里巴巴 阿里云 阿里 蚂蚁 淘宝 天猫 腾讯 微信 百度 文心 华为 小米 美团 "
    "京东 快手 拼多多 网易 滴滴 商汤 旷视 科大讯飞 讯飞 智谱 月之暗面 百川 零一万物 深度求索 幻方 面壁 "
    "阶跃星辰 通义 千问 豆包 混元 盘古 元宝 小红书 哔哩哔哩 B站 携程 联想 中兴 浪潮 寒武纪 摩尔线程 壁仞 "
    "海光 燧原 中科院 清华 北大 浙大 上交 复旦 微软 谷歌 亚马逊 英伟达 苹果 脸书"
).split()

# Lower case; the first word of a sentence is checked against these.
EN_ORGS = frozenset(
    "google meta facebook microsoft amazon aws apple nvidia openai anthropic deepmind bytedance tiktok alibaba "
    "tencent baidu huawei xiaomi meituan jd netease kuaishou pinduoduo sensetime zhipu moonshot deepseek minimax "
    "baichuan ibm intel amd oracle salesforce uber airbnb netflix linkedin twitter x.ai xai mistral cohere "
    "databricks snowflake tesla samsung stanford mit berkeley tsinghua peking".split()
)
